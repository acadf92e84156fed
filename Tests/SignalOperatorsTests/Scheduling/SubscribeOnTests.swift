import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SubscribeOnTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func subscribe_happensOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.subscribe(on: scheduler).subscribe(recorder)
    #expect(upstream.subscriptionCount == 0)
    #expect(recorder.events.isEmpty)
    scheduler.run(limit: 1)
    #expect(upstream.subscriptionCount == 1)
    #expect(recorder.events == [.subscription])
    #expect(recorder.subscriptionDescription == "SubscribeOn")
  }

  @Test func request_happensOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.run(limit: 1)
    #expect(upstream.requests.isEmpty)
    #expect(scheduler.pendingActionCount == 1)
    scheduler.advance()
    #expect(upstream.requests == [.demand(.max(2))])
  }

  @Test func values_passThroughSynchronously() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.advance()
    upstream.send(1)
    #expect(recorder.values == [1])
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func failure_passesThrough() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.advance()
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func demandNone_nothingDelivered() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.advance()
    upstream.send(1)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    scheduler.advance()
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [2])
  }

  @Test func demandFromReceive_returnedUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.advance()
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1, 2])
    #expect(upstream.outstandingDemand == .max(1))
    #expect(upstream.violations.isEmpty)
  }

  @Test func cancel_happensOnSchedulerAndStopsDeliveryAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.advance()
    recorder.cancel()
    upstream.send(1)
    #expect(upstream.requests == [.demand(.unlimited)])
    scheduler.advance()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.advance()
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
  }

  @Test func cancelAfterCompletion_sendsNoCancel() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.subscribe(on: scheduler).subscribe(recorder)
    scheduler.advance()
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    subscription?.cancel()
    scheduler.advance()
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.subscribe(on: scheduler).subscribe(recorder)
      scheduler.advance()
      inner = recorder.subscription as AnyObject
      recorder.cancel()
    }
    scheduler.advance()
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.subscribe(on: scheduler).subscribe(recorder)
      scheduler.advance()
      inner = recorder.subscription as AnyObject
      upstream.send(completion: .finished)
    }
    #expect(inner == nil)
  }

  @Test func serialQueue_subscribesOnTheQueue() {
    let queue = DispatchQueue(label: "SubscribeOnTests.serial")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let done = DispatchSemaphore(value: 0)
    let subscribedOn = LockedState<Int?>(nil)
    let values = LockedState([Int]())
    let cancellable = Deferred { () -> Publishers.Sequence<[Int], Never> in
      subscribedOn.withLock { $0 = DispatchQueue.getSpecific(key: key) }
      return [1, 2, 3].publisher
    }
    .subscribe(on: queue)
    .sink(
      receiveCompletion: { _ in done.signal() },
      receiveValue: { value in values.withLock { $0.append(value) } }
    )
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(subscribedOn.withLock { $0 } == 7)
    #expect(values.withLock { $0 } == [1, 2, 3])
    cancellable.cancel()
  }

  @Test func requestFromReceive_manyValuesWithoutRecursion() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<20_000).publisher.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
    #expect(recorder.values.count == 20_000)
    #expect(recorder.completion == .finished)
  }

  /// As Combine's, which crashes here (OpenCombine's
  /// `SubscribeOnTests.testCrashWhenRequestingRecursively`): a request made from inside the
  /// upstream's `request(_:)` reaches the upstream again on the same thread.
  @Test func requestFromInsideTheUpstreamsRequest_onAnImmediateScheduler_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Eager: Subscriber {
        var subscription: (any Subscription)?
        func receive(subscription: any Subscription) {
          self.subscription = subscription
          subscription.request(.max(1))
        }
        func receive(_ input: Int) -> Subscribers.Demand {
          subscription?.request(.max(1))  // inside the sequence's request(_:)
          return .none
        }
        func receive(completion: Subscribers.Completion<Never>) {}
      }
      [1, 2, 3].publisher.subscribe(on: ImmediateScheduler.shared).subscribe(Eager())
    }
    expectTrap(trap, "subscribe(on:): request(_:) reached the upstream again")
  }

  @Test func requestNone_isPassedUpstream_asCombineDoes() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    upstream.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(upstream.requests == [.demand(.none)])
  }

  @Test func immediateScheduler_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.subscribe(on: ImmediateScheduler.shared) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func serialQueue_conforms() {
    let queue = DispatchQueue(label: "SubscribeOnTests.conformance")
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]).subscribe(on: queue)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).subscribe(on: queue)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  /// `options` goes with the subscribe, each request and the cancel.
  @Test func options_forwardedToTheScheduler() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    source.subscribe(on: spy, options: SpyOptions(tag: 6)).subscribe(recorder)
    spy.base.advance()
    recorder.request(.max(1))
    spy.base.advance()
    recorder.cancel()
    spy.base.advance()
    #expect(source.requests == [.demand(.max(1)), .cancel])
    #expect(spy.calls.count == 3)
    #expect(spy.calls.allSatisfy { $0.kind == .now && $0.options == SpyOptions(tag: 6) })
  }
}
