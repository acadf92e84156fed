import Dispatch
import FutureKit
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamSubscriberTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func typedCallbacks_receiveOnlyTheirStates() async {
    let values = StreamLog<Int>()
    let errors = StreamLog<StreamTestError>()
    let cancellations = StreamLog<Void>()
    let subscriber = publisher.subscriber()
      .onNewData { values.append($0) }
      .onError { errors.append($0) }
      .onCancelled { cancellations.append(()) }
    values.waits(on: subscriber)
    errors.waits(on: subscriber)
    cancellations.waits(on: subscriber)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    publisher.cancelAll()
    #expect(await values.elements == [1, 2])
    #expect(await errors.elements == [StreamTestError(1)])
    #expect(await cancellations.count == 1)
    #expect(subscriber.isCancelled)
  }

  @Test func callbacks_runInRegistrationOrder() async {
    let order = StreamLog<String>()
    let subscriber = publisher.subscriber()
      .onNewData { order.append("a\($0)") }
      .subscribe { order.append("b\($0.value ?? 0)") }
      .onNewData { order.append("c\($0)") }
    order.waits(on: subscriber)
    publisher.publish(1)
    publisher.publish(2)
    #expect(await order.elements == ["a1", "b1", "c1", "a2", "b2", "c2"])
    _ = subscriber
  }

  @Test func callbacksWithoutAQueue_neverRunInsidePublishAsInPropagate() async {
    let marker = StreamQueueMarker(label: "publisher")
    let inside = StreamLog<String>()
    let subscriber = publisher.subscriber()
      .onNewData { inside.append("data \($0) inside publish: \(marker.isCurrent)") }
      .onError { _ in inside.append("error inside publish: \(marker.isCurrent)") }
    inside.waits(on: subscriber)
    marker.queue.sync {
      publisher.publish(1)
      publisher.publish(StreamTestError(1))
    }
    #expect(
      await inside.elements == ["data 1 inside publish: false", "error inside publish: false"]
    )
    #expect(subscriber.callbackDispatchQueue != nil)
  }

  @Test func synchronously_runsInsidePublish() async {
    let values = StreamLog<Int>()
    let errors = StreamLog<StreamTestError>()
    let cancellations = StreamLog<Void>()
    let states = StreamLog<StreamState<Int, StreamTestError>>()
    let subscriber = publisher.subscriber()
      .onNewData(.synchronously) { values.append($0) }
      .onError(.synchronously) { errors.append($0) }
      .onCancelled(.synchronously) { cancellations.append(()) }
      .subscribe(.synchronously) { states.append($0) }
    publisher.publish(1)
    #expect(await values.elements == [1])
    publisher.publish(StreamTestError(2))
    #expect(await errors.elements == [StreamTestError(2)])
    publisher.cancelAll()
    #expect(await cancellations.count == 1)
    #expect(await states.elements == [.data(1), .error(StreamTestError(2)), .cancelled])
    #expect(subscriber.callbackDispatchQueue == nil)
  }

  @Test func cancelled_dropsCallbacksAndIgnoresLaterStates() async {
    let subscriber = publisher.subscriber()
    let log = subscriber.record()
    subscriber.cancel()
    publisher.publish(1)
    subscriber.cancel()
    #expect(await log.elements == [.cancelled])
  }

  @Test func cancel_leavesThePublisherAndOtherSubscribersGoOn() async {
    let leaving = publisher.subscriber()
    let staying = publisher.subscriber()
    let leavingLog = leaving.record()
    let stayingLog = staying.record()
    leaving.cancel()
    publisher.publish(1)
    #expect(await leavingLog.elements == [.cancelled])
    #expect(await stayingLog.elements == [.data(1)])
    #expect(!publisher.isCancelled)
  }

  @Test func lateRegistration_receivesCancelledSynchronouslyAndIsNotKept() async {
    let subscriber = publisher.subscriber()
    publisher.cancelAll()
    let states = subscriber.record()
    let cancellations = StreamLog<Void>()
    let values = StreamLog<Int>()
    subscriber.onCancelled { cancellations.append(()) }.onNewData { values.append($0) }
    #expect(await states.elements == [.cancelled])
    #expect(await cancellations.count == 1)
    #expect(await values.count == 0)
  }

  @Test func lateRegistrationWithAQueue_receivesCancelledSynchronouslyInPlaceAsInPropagate() async {
    let marker = StreamQueueMarker(label: "late")
    let subscriber = publisher.subscriber()
    subscriber.cancel()
    let ranOnQueue = StreamLog<Bool>()
    subscriber.onCancelled(onQueue: marker.queue) { ranOnQueue.append(marker.isCurrent) }
    #expect(await ranOnQueue.elements == [false])
    marker.flush()
    #expect(await ranOnQueue.elements == [false])
  }

  @Test func droppedSubscriber_stopsReceivingIsReleasedAndIsCancelled() async {
    let values = StreamLog<Int>()
    let cancellations = StreamLog<Void>()
    weak var weakSubscriber: StreamSubscriber<Int, StreamTestError>?
    do {
      let subscriber = publisher.subscriber()
        .onNewData { values.append($0) }
        .onCancelled { cancellations.append(()) }
      values.waits(on: subscriber)
      cancellations.waits(on: subscriber)
      weakSubscriber = subscriber
      publisher.publish(1)
    }
    #expect(weakSubscriber == nil)
    #expect(await cancellations.count == 1)
    publisher.publish(2)
    #expect(await values.elements == [1])
  }

  @Test func operatorChain_isKeptAliveFromItsEnd() async {
    weak var weakSource: StreamSubscriber<Int, StreamTestError>?
    var chain: StreamSubscriber<String, StreamTestError>?
    do {
      let source = publisher.subscriber()
      weakSource = source
      chain = source.mapValues { $0 * 2 }.filterValues { $0 > 2 }.mapValues { "\($0)" }
    }
    #expect(weakSource != nil)
    let log = chain!.record()
    publisher.publish(1)
    publisher.publish(2)
    #expect(await log.elements == [.data("4")])
    chain = nil
    #expect(weakSource == nil)
  }

  @Test func storedAsCancellable_staysAliveUntilTheSetIsEmptied() async {
    var cancellables = Set<AnyCancellable>()
    let values = StreamLog<Int>()
    do {
      let subscriber = publisher.subscriber().onNewData { values.append($0) }
      values.waits(on: subscriber)
      subscriber.store(in: &cancellables)
    }
    publisher.publish(1)
    cancellables.removeAll()
    publisher.publish(2)
    #expect(await values.elements == [1])
  }

  @Test func onQueue_runsEachCallbackOnItsQueueInOrder() async {
    let marker = StreamQueueMarker(label: "callbacks")
    let values = StreamLog<Int>()
    let onQueue = StreamLog<Bool>()
    let subscriber = publisher.subscriber().onNewData(onQueue: marker.queue) {
      values.append($0)
      onQueue.append(marker.isCurrent)
    }
    for value in 0..<100 { publisher.publish(value) }
    marker.flush()
    #expect(await values.elements == Array(0..<100))
    #expect(await onQueue.elements.allSatisfy { $0 })
    _ = subscriber
  }

  @Test func onQueue_errorsAndCancellationRunOnTheQueueToo() async {
    let marker = StreamQueueMarker(label: "callbacks")
    let events = StreamLog<String>()
    let subscriber = publisher.subscriber()
      .onError(onQueue: marker.queue) { _ in events.append("error \(marker.isCurrent)") }
      .onCancelled(onQueue: marker.queue) { events.append("cancelled \(marker.isCurrent)") }
      .subscribe(onQueue: marker.queue) { events.append("state \($0) \(marker.isCurrent)") }
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    marker.flush()
    #expect(
      await Set(events.elements) == [
        "error true", "cancelled true", "state Error: StreamTestError(code: 1) true",
        "state Cancelled. true",
      ]
    )
    _ = subscriber
  }

  @Test func subscribeOnMain_runsOnTheMainQueue() async {
    let key = DispatchSpecificKey<Int>()
    DispatchQueue.main.setSpecific(key: key, value: 42)
    let subscriber = publisher.subscriber()
    let onMain = await withCheckedContinuation { continuation in
      subscriber.subscribeOnMain { state in
        guard case .data = state else { return }  // deinit sends `.cancelled` later
        continuation.resume(returning: DispatchQueue.getSpecific(key: key) == 42)
      }
      publisher.publish(1)
    }
    #expect(onMain)
  }

  @Test func registrationInsideACallback_neitherDeadlocksNorReplaysForAPlainStream() async {
    let subscriber = publisher.subscriber()
    let inner = StreamLog<Int>()
    let outer = StreamLog<Int>()
    subscriber.onNewData { value in
      outer.append(value)
      if value == 1 { subscriber.onNewData { inner.append($0) } }
    }
    outer.waits(on: subscriber)
    inner.waits(on: subscriber)
    publisher.publish(1)
    await subscriber.waitForCallbacks()  // the outer callback has registered the inner one
    publisher.publish(2)
    await #expect(outer.elements == [1, 2])
    await #expect(inner.elements == [2])
  }

  @Test func bindTo_forwardsEveryStateIncludingCancellation() async {
    let target = StreamPublisher<Int, StreamTestError>()
    let targetSubscriber = target.subscriber()
    let log = targetSubscriber.record()
    let source = publisher.subscriber().bindTo(target)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(await log.elements == [.data(1), .error(StreamTestError(1)), .cancelled])
    #expect(target.isCancelled)
    _ = source
  }

  @Test func description_namesTheTypeAndCancellation() {
    let subscriber = publisher.subscriber()
    #expect(subscriber.description == "StreamSubscriber<Int, StreamTestError>")
    subscriber.cancel()
    #expect(subscriber.description == "StreamSubscriber<Int, StreamTestError> (cancelled)")
  }
}
