import Dispatch
import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamStatefulTests {
  @Test func statefulPublisher_replaysTheLatestStateSynchronouslyPerRegistration() async {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    let subscriber = publisher.subscriber()
    publisher.publish(1)
    publisher.publish(2)
    let first = StreamLog<Int>()
    let second = StreamLog<Int>()
    subscriber.onNewData { first.append($0) }
    #expect(await first.elements == [2])  // the replay, synchronous
    first.waits(on: subscriber)
    subscriber.onNewData { second.append($0) }
    #expect(await second.elements == [2])
    #expect(await first.elements == [2])
    second.waits(on: subscriber)
    publisher.publish(3)
    #expect(await first.elements == [2, 3])
    #expect(await second.elements == [2, 3])
  }

  @Test func statefulPublisher_newSubscriberReplaysTheLatestState() async {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    publisher.publish(StreamTestError(1))
    let subscriber = publisher.subscriber()
    #expect(await subscriber.record().elements == [.error(StreamTestError(1))])
  }

  @Test func statefulPublisher_beforeAnyState_replaysNothing() async {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    let subscriber = publisher.subscriber()
    let log = subscriber.record()
    #expect(await log.elements.isEmpty)
    #expect(publisher.lastState == nil)
    #expect(publisher.lastValue == nil)
  }

  @Test func lastStateAndLastValue_keepTheValueAcrossErrorsAndCancellation() {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    publisher.publish(1)
    #expect(publisher.lastState == .data(1))
    publisher.publish(StreamTestError(2))
    #expect(publisher.lastState == .error(StreamTestError(2)))
    #expect(publisher.lastValue == 1)
    publisher.cancelAll()
    #expect(publisher.lastState == .cancelled)
    #expect(publisher.lastValue == 1)
  }

  @Test func statefulPublisherAfterCancel_newCallbacksReceiveOnlyCancelled() async {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    let subscriber = publisher.subscriber()
    publisher.publish(1)
    publisher.cancelAll()
    let log = subscriber.record()
    #expect(await log.elements == [.cancelled])
    #expect(await publisher.subscriber().record().elements == [.cancelled])
  }

  @Test func replayWithAQueue_runsSynchronouslyOnTheRegisteringThreadThenFollowsOnTheQueue() async {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    publisher.publish(1)
    let marker = StreamQueueMarker(label: "replay")
    let seen = StreamLog<String>()
    let subscriber = publisher.subscriber().onNewData(onQueue: marker.queue) { value in
      seen.append("\(value) on queue: \(marker.isCurrent)")
    }
    #expect(await seen.elements == ["1 on queue: false"])  // before the registration returned
    publisher.publish(2)
    marker.flush()
    #expect(await seen.elements == ["1 on queue: false", "2 on queue: true"])
    _ = subscriber
  }

  @Test func stateful_replaysTheUpstreamsLatestStateToEachRegistration() async {
    let publisher = StreamPublisher<Int, StreamTestError>()
    let stateful = publisher.subscriber().stateful()
    #expect(await stateful.record().elements.isEmpty)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    #expect(await stateful.record().elements == [.error(StreamTestError(1))])
    let log = stateful.record()
    publisher.publish(2)
    #expect(await log.elements == [.error(StreamTestError(1)), .data(2)])
  }

  @Test func statefulUpstreamCancelled_cancelsTheStatefulStream() async {
    let publisher = StreamPublisher<Int, StreamTestError>()
    let stateful = publisher.subscriber().stateful()
    publisher.publish(1)
    publisher.cancelAll()
    #expect(stateful.isCancelled)
    #expect(await stateful.record().elements == [.cancelled])
  }

  @Test func operatorsOnAStatefulStream_areStatefulToo() async {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    publisher.publish(1)
    let doubled = publisher.subscriber().mapValues { $0 * 2 }.filterValues { $0 > 0 }
    let log = doubled.record()
    #expect(await log.elements == [.data(2)])
    publisher.publish(2)
    #expect(await log.elements == [.data(2), .data(4)])
    #expect(await doubled.record().elements == [.data(4)])
  }

  @Test func operatorsOnAPlainStream_arePlain() async {
    let publisher = StreamPublisher<Int, StreamTestError>()
    let doubled = publisher.subscriber().mapValues { $0 * 2 }
    publisher.publish(1)
    #expect(await doubled.record().elements.isEmpty)
  }

  @Test func startWith_replaysTheInitialValueThenFollowsUpstream() async {
    let publisher = StreamPublisher<String, StreamTestError>()
    let query = publisher.subscriber().startWith("")
    #expect(await query.record().elements == [.data("")])
    publisher.publish("swift")
    #expect(await query.record().elements == [.data("swift")])
  }

  @Test func startWithOnAStatefulUpstream_theUpstreamsStateWins() async {
    let publisher = StatefulStreamPublisher<String, StreamTestError>()
    publisher.publish("latest")
    let query = publisher.subscriber().startWith("")
    #expect(await query.record().elements == [.data("latest")])
  }

  @Test func ofValue_replaysTheValueForeverAndIsNotCancelled() async {
    let fixed = StreamSubscriber<Int, StreamTestError>.of(42)
    #expect(await fixed.record().elements == [.data(42)])
    #expect(await fixed.record().elements == [.data(42)])
    #expect(!fixed.isCancelled)
  }

  @Test func ofError_replaysTheError() async {
    let failing = StreamSubscriber<Int, StreamTestError>.of(StreamTestError(3))
    #expect(await failing.record().elements == [.error(StreamTestError(3))])
    failing.cancel()
    #expect(await failing.record().elements == [.cancelled])
  }

  @Test func registrationWhileAnotherThreadPublishes_replayComesBeforeNewerStates() async {
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    publisher.publish(0)
    let subscriber = publisher.subscriber()
    let logs = (0..<50).map { _ in StreamLog<Int>() }
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      for value in 1...2_000 { publisher.publish(value) }
    }
    for log in logs {
      subscriber.onNewData { log.append($0) }
      log.waits(on: subscriber)
    }
    #expect(group.wait(timeout: .now() + 60) == .success)
    for log in logs {
      let values = await log.elements
      #expect(!values.isEmpty)
      #expect(values == values.sorted() && Set(values).count == values.count)
      #expect(values.last == 2_000)
    }
  }
}
