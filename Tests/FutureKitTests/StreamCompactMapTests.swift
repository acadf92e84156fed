import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamCompactMapTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func compactMapStates_skipsNilResults() async {
    let mapped = publisher.subscriber().compactMapStates {
      state -> StreamState<String, StreamTestError>? in
      switch state {
      case .data(let value): value.isMultiple(of: 2) ? .data("\(value)") : nil
      case .error(let error): error.code > 0 ? .error(error) : nil
      case .cancelled: nil
      }
    }
    let log = mapped.record()
    publisher.publish(1)
    publisher.publish(2)
    publisher.publish(StreamTestError(0))
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(await log.elements == [.data("2"), .error(StreamTestError(1)), .cancelled])
  }

  @Test func compactMapValues_skipsNilValuesAndPassesErrors() async {
    let texts = StreamPublisher<String, StreamTestError>()
    let numbers = texts.subscriber().compactMapValues { Int($0) }
    let log = numbers.record()
    texts.publish("1")
    texts.publish("x")
    texts.publish(StreamTestError(1))
    texts.publish("3")
    #expect(await log.elements == [.data(1), .error(StreamTestError(1)), .data(3)])
  }

  @Test func compactMapErrors_skipsNilErrorsAndPassesValues() async {
    let mapped = publisher.subscriber().compactMapErrors { error in
      error.code > 0 ? StreamOtherError(text: "e\(error.code)") : nil
    }
    let values = StreamLog<Int>()
    let errors = StreamLog<StreamOtherError>()
    mapped.onNewData { values.append($0) }.onError { errors.append($0) }
    values.waits(on: mapped)
    errors.waits(on: mapped)
    publisher.publish(StreamTestError(0))
    publisher.publish(StreamTestError(2))
    publisher.publish(5)
    #expect(await values.elements == [5])
    #expect(await errors.elements == [StreamOtherError(text: "e2")])
  }

  @Test func upstreamCancellation_cancelsEveryCompactMappedStream() {
    let source = publisher.subscriber()
    let values = source.compactMapValues { $0 }
    let errors = source.compactMapErrors { $0 }
    let states = source.compactMapStates { $0 }
    publisher.cancelAll()
    #expect(values.isCancelled && errors.isCancelled && states.isCancelled)
  }
}
