import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DelayTests {
  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func values_deliveredIntervalLaterInOrder() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 4)
    upstream.send(2)
    scheduler.advance(by: 5)
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: 1)
    #expect(recorder.values == [1])
    scheduler.advance(by: 3)
    #expect(recorder.values == [1])
    scheduler.advance(by: 1)
    #expect(recorder.values == [1, 2])
  }

  @Test func subscription_description() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    #expect(recorder.events == [.subscription])
    #expect(recorder.subscriptionDescription == "Delay")
  }

  @Test func finishAfterValues_delayedToo() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 5)
    upstream.send(completion: .finished)
    scheduler.advance(by: 5)
    #expect(recorder.events == [.subscription, .value(1)])
    scheduler.advance(by: 5)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func failureBeforeValues_delayed() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance(by: 9)
    #expect(recorder.events == [.subscription])
    scheduler.advance(by: 1)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func failureAfterValues_deliveredAfterThem() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance(by: 10)
    #expect(
      recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))]
    )
  }

  @Test func request_forwardedUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    upstream.send(1)
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
    upstream.send(2)
    upstream.send(3)
    scheduler.advance(by: 10)
    #expect(recorder.values == [2])
  }

  @Test func demandFromReceive_requestedUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 10)
    upstream.send(2)
    scheduler.advance(by: 10)
    #expect(recorder.values == [1, 2])
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1)), .demand(.max(1))])
    #expect(upstream.violations.isEmpty)
  }

  /// As Combine's (OpenCombine's `DelayTests.testStrongCaptureWhenSchedulingCompletion`): once
  /// the upstream's completion arrived, a cancel does nothing; the completion is delivered.
  @Test func cancel_whileCompletionIsScheduled_doesNothing() throws {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 5, scheduler: scheduler).subscribe(recorder)
    upstream.send(completion: .finished)
    try #require(recorder.subscription).cancel()
    scheduler.advance(by: 5)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  /// As Combine's (`testReceiveCompletionImmediatelyAfterValue`): demand returned for a value
  /// delivered after the upstream's completion arrived is still requested from the upstream.
  @Test func valueDeliveredAfterTheUpstreamCompleted_requestsItsDemandUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(3)
    )
    upstream.delay(for: 5, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    scheduler.advance(by: 5)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(3))])
  }

  @Test func cancelBeforeDue_dropsPendingValues() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    recorder.cancel()
    upstream.send(completion: .finished)
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelWhileActive_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 10)
    recorder.cancel()
    recorder.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.values == [1])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func requestFromReceive_forwardedUpstream() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    scheduler.advance(by: 10)
    upstream.send(2)
    scheduler.advance(by: 10)
    #expect(recorder.values == [1, 2])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(1)
      recorder.cancel()
    }
    scheduler.advance(by: 10)
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.delay(for: 10, scheduler: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(completion: .finished)
    }
    scheduler.advance(by: 10)
    #expect(recorder.completion == .finished)
    #expect(inner == nil)
  }

  @Test func concurrentSends_nothingLostOrDuplicated() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    subject.delay(for: 5, scheduler: scheduler).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<500 { subject.send(side * 500 + value) }
    }
    scheduler.advance(by: 5)
    #expect(recorder.values.sorted() == Array(0..<2_000))
    #expect(recorder.violations.isEmpty)
  }

  @Test func requestFromReceive_manyValuesWithoutRecursion() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<20_000).publisher.delay(for: 1, scheduler: ImmediateScheduler.shared).subscribe(recorder)
    #expect(recorder.values.count == 20_000)
    #expect(recorder.completion == .finished)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      PassthroughSubject<Int, Never>().delay(for: 1, scheduler: TestScheduler())
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func immediateScheduler_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .delay(for: 1, scheduler: ImmediateScheduler.shared)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError())
          .delay(for: 1, scheduler: ImmediateScheduler.shared)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  /// `tolerance` and `options` go with every scheduled event.
  @Test func toleranceAndOptions_forwardedToTheScheduler() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    source.delay(for: 5, tolerance: 1, scheduler: spy, options: SpyOptions(tag: 2))
      .subscribe(recorder)
    source.send(1)
    source.send(completion: .finished)
    spy.base.advance(by: 5)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(spy.calls.count == 2)
    #expect(spy.calls.allSatisfy { $0.kind == .after && $0.tolerance == 1 })
    #expect(spy.calls.allSatisfy { $0.options == SpyOptions(tag: 2) })
  }

  /// Without a tolerance, the scheduler's minimum tolerance is used.
  @Test func noTolerance_usesTheSchedulersMinimum() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    source.delay(for: 5, scheduler: spy).subscribe(recorder)
    source.send(1)
    #expect(spy.calls == [.init(kind: .after, tolerance: spy.minimumTolerance, options: nil)])
  }

  // The differential oracle (issue 15): `delay -`. Described as `Delay`, with no mirror children
  // (intended I28: Combine's shows its internal type and fields).
  @Test func mirror_hasNoChildren() throws {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.delay(for: 2, scheduler: scheduler).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(Mirror(reflecting: subscription).children.isEmpty)
    #expect(String(describing: subscription) == "Delay")
  }
}
