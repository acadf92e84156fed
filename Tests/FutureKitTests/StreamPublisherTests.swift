import FutureKit
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamPublisherTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func publish_reachesEverySubscriberSynchronously() async {
    let first = publisher.subscriber()
    let second = publisher.subscriber()
    let firstLog = first.record()
    let secondLog = second.record()
    publisher.publish(1)
    #expect(await firstLog.elements == [.data(1)])
    #expect(await secondLog.elements == [.data(1)])
  }

  @Test func subscriber_returnsANewSubscriberEachCall() async {
    let first = publisher.subscriber()
    let second = publisher.subscriber()
    #expect(first !== second)
    first.cancel()
    let log = second.record()
    publisher.publish(1)
    #expect(await log.elements == [.data(1)])
  }

  @Test func error_doesNotEndTheStream() async {
    let subscriber = publisher.subscriber()
    let log = subscriber.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    #expect(await log.elements == [.data(1), .error(StreamTestError(1)), .data(2)])
    #expect(!subscriber.isCancelled)
    #expect(!publisher.isCancelled)
  }

  @Test func publishStateForResult_publishesValueOrError() async {
    let subscriber = publisher.subscriber()
    let log = subscriber.record()
    publisher.publishState(forResult: .success(1))
    publisher.publishState(forResult: .failure(StreamTestError(2)))
    publisher.publishState(.data(3))
    #expect(await log.elements == [.data(1), .error(StreamTestError(2)), .data(3)])
  }

  @Test func cancelAll_deliversCancelledOnceAndEndsTheStream() async {
    let subscriber = publisher.subscriber()
    let log = subscriber.record()
    publisher.publish(1)
    publisher.cancelAll()
    publisher.cancelAll()
    publisher.publish(2)
    #expect(await log.elements == [.data(1), .cancelled])
    #expect(publisher.isCancelled)
    #expect(subscriber.isCancelled)
  }

  @Test func publishStateCancelled_isCancelAll() {
    let subscriber = publisher.subscriber()
    publisher.publishState(.cancelled)
    #expect(publisher.isCancelled)
    #expect(subscriber.isCancelled)
  }

  @Test func subscriberAfterCancelAll_isAlreadyCancelled() async {
    publisher.cancelAll()
    let subscriber = publisher.subscriber()
    #expect(subscriber.isCancelled)
    let log = subscriber.record()
    #expect(await log.elements == [.cancelled])
  }

  @Test func plainPublisher_replaysNothingToLaterSubscribers() async {
    publisher.publish(1)
    let subscriber = publisher.subscriber()
    let log = subscriber.record()
    publisher.publish(2)
    #expect(await log.elements == [.data(2)])
  }

  @Test func publishWithoutSubscribers_isANoOp() {
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    #expect(!publisher.isCancelled)
  }

  @Test func deinit_cancelsEverySubscriber() async {
    var publisher: StreamPublisher<Int, StreamTestError>? = StreamPublisher()
    let subscriber = publisher!.subscriber()
    let log = subscriber.record()
    publisher?.publish(1)
    publisher = nil
    #expect(await log.elements == [.data(1), .cancelled])
    #expect(subscriber.isCancelled)
  }

  @Test func kick_publishesVoid() async {
    let ticks = StreamPublisher<Void, StreamTestError>()
    let subscriber = ticks.subscriber()
    let count = StreamLog<Void>()
    subscriber.onNewData { count.append(()) }
    count.waits(on: subscriber)
    ticks.kick()
    ticks.kick()
    #expect(await count.count == 2)
  }

  @Test func publishFromInsideACallback_isDeliveredAfterTheCurrentStateReachesEverySubscriber()
    async
  {
    let order = StreamLog<String>()
    let first = publisher.subscriber()
    let second = publisher.subscriber()
    // Synchronous callbacks: the publisher's own ordering rule, without the subscribers' queues
    // (two subscribers' private queues have no order between them, as in Propagate).
    first.onNewData(.synchronously) { [publisher] value in
      order.append("first \(value)")
      if value == 1 { publisher.publish(2) }
    }
    second.onNewData(.synchronously) { order.append("second \($0)") }
    publisher.publish(1)
    #expect(await order.elements == ["first 1", "second 1", "first 2", "second 2"])
  }

  @Test func publishingFromInsideCallbacks_twentyThousandTimes_doesNotRecurse() async {
    let subscriber = publisher.subscriber()
    let count = StreamLog<Int>()
    // Synchronous, so that each publish happens inside the publishing call it follows.
    subscriber.onNewData(.synchronously) { [publisher] value in
      count.append(value)
      if value < 20_000 { publisher.publish(value + 1) }
    }
    publisher.publish(1)
    #expect(await count.count == 20_000)
  }

  @Test func description_namesTheTypeAndCancellation() {
    #expect(publisher.description == "StreamPublisher<Int, StreamTestError>")
    publisher.cancelAll()
    #expect(publisher.description == "StreamPublisher<Int, StreamTestError> (cancelled)")
    let stateful = StatefulStreamPublisher<Int, StreamTestError>()
    #expect(stateful.description == "StatefulStreamPublisher<Int, StreamTestError>")
  }
}
