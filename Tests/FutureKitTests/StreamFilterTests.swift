import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamFilterTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func filterStates_keepsTheStatesThePredicateAccepts() async {
    let filtered = publisher.subscriber().filterStates { $0.value != 0 && $0.error?.code != 0 }
    let log = filtered.record()
    publisher.publish(0)
    publisher.publish(1)
    publisher.publish(StreamTestError(0))
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(await log.elements == [.data(1), .error(StreamTestError(1)), .cancelled])
  }

  @Test func filterValues_keepsAcceptedValuesAndAllErrors() async {
    let filtered = publisher.subscriber().filterValues { $0 > 1 }
    let log = filtered.record()
    publisher.publish(1)
    publisher.publish(2)
    publisher.publish(StreamTestError(1))
    #expect(await log.elements == [.data(2), .error(StreamTestError(1))])
  }

  @Test func filterErrors_keepsAcceptedErrorsAndAllValues() async {
    let filtered = publisher.subscriber().filterErrors { $0.code > 1 }
    let log = filtered.record()
    publisher.publish(StreamTestError(1))
    publisher.publish(StreamTestError(2))
    publisher.publish(1)
    #expect(await log.elements == [.error(StreamTestError(2)), .data(1)])
  }

  @Test func filterNil_unwrapsValuesAndSkipsNil() async {
    let optionals = StreamPublisher<Int?, StreamTestError>()
    let values: StreamSubscriber<Int, StreamTestError> = optionals.subscriber().filterNil()
    let log = values.record()
    optionals.publish(nil)
    optionals.publish(1)
    optionals.publish(StreamTestError(1))
    optionals.publish(nil)
    optionals.cancelAll()
    #expect(await log.elements == [.data(1), .error(StreamTestError(1)), .cancelled])
  }

  @Test func upstreamCancellation_cancelsEveryFilteredStream() {
    let source = publisher.subscriber()
    let streams = [
      source.filterStates { _ in false },
      source.filterValues { _ in false },
      source.filterErrors { _ in false },
    ]
    publisher.cancelAll()
    #expect(streams.allSatisfy { $0.isCancelled })
  }
}
