import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamMapTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func mapStates_transformsValuesAndErrors() async {
    let mapped = publisher.subscriber().mapStates {
      state -> StreamState<String, StreamOtherError> in
      switch state {
      case .data(let value): .data("v\(value)")
      case .error(let error): .error(StreamOtherError(text: "e\(error.code)"))
      case .cancelled: .data("never called for cancellation")
      }
    }
    let log = mapped.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(2))
    publisher.cancelAll()
    #expect(await log.elements == [.data("v1"), .error(StreamOtherError(text: "e2")), .cancelled])
  }

  @Test func mapStatesReturningCancelled_cancelsTheNewStream() async {
    let mapped = publisher.subscriber().mapStates { state -> StreamState<Int, StreamTestError> in
      state.value == 0 ? .cancelled : state
    }
    let log = mapped.record()
    publisher.publish(1)
    publisher.publish(0)
    publisher.publish(2)
    #expect(await log.elements == [.data(1), .cancelled])
    #expect(!publisher.isCancelled)
  }

  @Test func mapValues_transformsValuesAndPassesErrors() async {
    let mapped = publisher.subscriber().mapValues { "\($0 * 10)" }
    let log = mapped.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    #expect(await log.elements == [.data("10"), .error(StreamTestError(1)), .data("20")])
  }

  @Test func mapErrors_transformsErrorsAndPassesValues() async {
    let mapped = publisher.subscriber().mapErrors { StreamOtherError(text: "\($0.code)") }
    let log = mapped.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(5))
    #expect(await log.elements == [.data(1), .error(StreamOtherError(text: "5"))])
  }

  @Test func splitMapValues_canTurnAValueIntoAnError() async {
    let mapped = publisher.subscriber().splitMapValues {
      value -> StreamState<String, StreamTestError> in
      value < 0 ? .error(StreamTestError(value)) : .data("\(value)")
    }
    let log = mapped.record()
    publisher.publish(1)
    publisher.publish(-1)
    publisher.publish(StreamTestError(9))
    #expect(
      await log.elements == [.data("1"), .error(StreamTestError(-1)), .error(StreamTestError(9))]
    )
  }

  @Test func splitMapErrors_canRecoverAnErrorAsAValue() async {
    let mapped = publisher.subscriber().splitMapErrors {
      error -> StreamState<Int, StreamOtherError> in
      error.code == 0 ? .data(0) : .error(StreamOtherError(text: "\(error.code)"))
    }
    let log = mapped.record()
    publisher.publish(StreamTestError(0))
    publisher.publish(StreamTestError(1))
    publisher.publish(3)
    #expect(await log.elements == [.data(0), .error(StreamOtherError(text: "1")), .data(3)])
  }

  @Test func upstreamCancellation_cancelsEveryMappedStream() async {
    let source = publisher.subscriber()
    let streams = [
      source.mapValues { $0 }.record(),
      source.mapErrors { $0 }.record(),
      source.splitMapValues { .data($0) }.record(),
      source.splitMapErrors { .error($0) }.record(),
      source.mapStates { $0 }.record(),
    ]
    publisher.cancelAll()
    for log in streams {
      #expect(await log.elements == [.cancelled])
    }
  }

  @Test func operatorOnACancelledStream_isCancelledAtOnce() {
    let source = publisher.subscriber()
    source.cancel()
    let mapped = source.mapValues { $0 + 1 }
    #expect(mapped.isCancelled)
  }
}
