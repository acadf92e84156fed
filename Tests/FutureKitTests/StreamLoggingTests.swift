import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamLoggingTests {
  let publisher = StreamPublisher<Int, StreamTestError>()
  let lines = StreamLog<String>()

  var hook: StreamLoggingMethod {
    .external { [lines] in lines.append($0) }
  }

  @Test func allLevel_reportsLifeCyclePubSubAndOperators() async {
    publisher.enableLogging(logLevel: .all, "pub", hook)
    let subscriber = publisher.subscriber().enableLogging(logLevel: .all, "sub", hook)
    let mapped = subscriber.mapValues { $0 + 1 }
    publisher.publish(1)
    publisher.cancelAll()
    #expect(
      await lines.elements == [
        "[pub] StreamPublisher<Int, StreamTestError>: vended StreamSubscriber<Int, StreamTestError>",
        "[sub] StreamSubscriber<Int, StreamTestError>: mapValues -> StreamSubscriber<Int, StreamTestError>",
        "[pub] StreamPublisher<Int, StreamTestError>: publishing Data: 1",
        "[sub] StreamSubscriber<Int, StreamTestError>: received Data: 1",
        "[sub] StreamSubscriber<Int, StreamTestError>: received Data: 2",
        "[pub] StreamPublisher<Int, StreamTestError> (cancelled): cancelled all subscribers",
        "[sub] StreamSubscriber<Int, StreamTestError> (cancelled): cancelled",
        "[sub] StreamSubscriber<Int, StreamTestError> (cancelled): cancelled",
      ]
    )
    _ = mapped
  }

  @Test func pubSubOnly_reportsOnlyStates() async {
    publisher.enableLogging(logLevel: .pubSubOnly, "", hook)
    let subscriber = publisher.subscriber()
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(
      await lines.elements == [
        "StreamPublisher<Int, StreamTestError>: publishing Error: StreamTestError(code: 1)"
      ]
    )
    _ = subscriber
  }

  @Test func lifeCycleOnly_reportsVendingCancellationAndDeinit() async {
    do {
      let subscriber = publisher.subscriber().enableLogging(logLevel: .lifeCycleOnly, "", hook)
      publisher.publish(1)
      _ = subscriber.mapValues { $0 }  // inherits the logging, and is released at once
    }
    #expect(
      await lines.elements == [
        "StreamSubscriber<Int, StreamTestError>: deinit",
        "StreamSubscriber<Int, StreamTestError>: deinit",
      ]
    )
  }

  @Test func operatorsOnly_reportsOperatorsAndIsInheritedByDerivedStreams() async {
    let subscriber = publisher.subscriber().enableLogging(logLevel: .operatorsOnly, "", hook)
    let mapped = subscriber.mapValues { "\($0)" }.filterValues { !$0.isEmpty }
    publisher.publish(1)
    #expect(
      await lines.elements == [
        "StreamSubscriber<Int, StreamTestError>: mapValues -> StreamSubscriber<String, StreamTestError>",
        "StreamSubscriber<String, StreamTestError>: filterValues -> StreamSubscriber<String, StreamTestError>",
      ]
    )
    _ = mapped
  }

  @Test func combinedLevels_includeExactlyTheirGroups() async {
    publisher.enableLogging(logLevel: .lifeCyclePlusPubSub, "", hook)
    let subscriber = publisher.subscriber().enableLogging(
      logLevel: .lifeCyclePlusOperators,
      "",
      hook
    )
    let stateful = subscriber.stateful()
    publisher.publish(1)
    #expect(
      await lines.elements == [
        "StreamPublisher<Int, StreamTestError>: vended StreamSubscriber<Int, StreamTestError>",
        "StreamSubscriber<Int, StreamTestError>: stateful -> StreamSubscriber<Int, StreamTestError>",
        "StreamPublisher<Int, StreamTestError>: publishing Data: 1",
      ]
    )
    _ = stateful
  }

  @Test func noneLevel_reportsNothing() async {
    publisher.enableLogging(logLevel: .none, "", hook)
    let subscriber = publisher.subscriber().enableLogging(logLevel: .none, "", hook)
    publisher.publish(1)
    publisher.cancelAll()
    #expect(await lines.elements.isEmpty)
    _ = subscriber
  }

  @Test func valueOnlyAndUpdateOnly_logThroughTheirStream() async {
    let values = publisher.subscriber().valueOnly().enableLogging(logLevel: .pubSubOnly, "v", hook)
    let updates = publisher.subscriber().didUpdate().enableLogging(
      logLevel: .pubSubOnly,
      "u",
      hook
    )
    publisher.publish(1)
    #expect(
      await Set(lines.elements) == [
        "[v] StreamSubscriber<Int, Never>: received Data: 1",
        "[u] StreamSubscriber<(), Never>: received Data: ()",
      ]
    )
    _ = (values, updates)
  }

  @Test func debugPrint_isAcceptedAsAMethod() {
    let subscriber = publisher.subscriber().enableLogging(logLevel: .none)
    publisher.publish(1)
    #expect(!subscriber.isCancelled)
  }
}
