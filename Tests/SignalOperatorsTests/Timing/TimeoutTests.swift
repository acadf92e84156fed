import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TimeoutTests {
  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func noValue_failsWithCustomError() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler) { TestError() }.subscribe(recorder)
    scheduler.advance(by: 9)
    #expect(recorder.events == [.subscription])
    scheduler.advance(by: 1)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.subscriptionDescription == "Timeout")
  }

  @Test func subscription_mirrorsNoChildren_andPlaysAsTimeout() throws {
    // As Combine's: no mirror children, and the description as the playground display.
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler) { TestError() }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(Mirror(reflecting: subscription).children.isEmpty)
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == "Timeout")
  }

  @Test func noValue_finishesWithoutCustomError() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func eachValue_restartsTheTimer() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    scheduler.advance(by: 8)
    upstream.send(1)
    scheduler.advance(by: 8)
    upstream.send(2)
    scheduler.advance(by: 9)
    #expect(recorder.events == [.subscription, .value(1), .value(2)])
    scheduler.advance(by: 1)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func values_deliveredOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values.isEmpty)
    scheduler.advance()
    #expect(recorder.values == [1, 2])
  }

  @Test func firstRequest_restartsTheTimer() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    scheduler.advance(by: 5)
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
    scheduler.advance(by: 9)
    #expect(recorder.events == [.subscription])
    scheduler.advance(by: 1)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func demandNone_nothingDeliveredAndTimesOut() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.cancel])
  }

  @Test func demandMaxOne_oneValue() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [1])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandFromReceive_requestedUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance()
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [1, 2])
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1)), .demand(.max(1))])
  }

  @Test func upstreamFinish_deliveredAfterValuesAndStopsTimer() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler) { TestError() }.subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func upstreamFailureBeforeValues_delivered() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance(by: 20)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func cancel_stopsTimerAndUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    recorder.cancel()
    scheduler.advance(by: 20)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func cancelAfterTimeout_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    let subscription = recorder.subscription
    scheduler.advance(by: 10)
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    scheduler.advance(by: 20)
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func requestFromReceive_forwarded() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    scheduler.advance()
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [1, 2])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterTimeout() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
    }
    scheduler.advance(by: 10)
    #expect(recorder.completion == .finished)
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(completion: .finished)
    }
    scheduler.advance()
    #expect(inner == nil)
  }

  @Test func concurrentSends_nothingLostOrDuplicated() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    subject.timeout(10, scheduler: scheduler).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<500 { subject.send(side * 500 + value) }
    }
    scheduler.advance()
    #expect(recorder.values.sorted() == Array(0..<2_000))
    #expect(recorder.violations.isEmpty)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      PassthroughSubject<Int, Never>().timeout(1, scheduler: TestScheduler()).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func serialQueue_conforms() {
    // The timer is a minute long and never fires: the kit checks the delivery, not the timeout.
    let queue = DispatchQueue(label: "TimeoutTests.conformance")
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .timeout(.seconds(60), scheduler: queue)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError())
          .timeout(.seconds(60), scheduler: queue)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  /// As Combine's (OpenCombine's `TimeoutTests.testCrashesWithImmediateScheduler`): on the
  /// immediate scheduler the timer would fire as it starts.
  @Test func immediateScheduler_traps_asCombineDoes() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      TestPublisher<Int, TestError>().timeout(10, scheduler: ImmediateScheduler.shared)
        .subscribe(RecordingSubscriber<Int, TestError>())
    }
    expectTrap(trap, "Timeout: ImmediateScheduler can't measure a timeout")
  }

  /// As Combine's, the timer starts before the subscriber's `receive(subscription:)`; a timeout
  /// that fires on another thread meanwhile waits for it to return before the completion is
  /// delivered (Combine's per-subscriber lock makes it wait the same way).
  @Test func timeoutOnAnotherThread_duringReceiveSubscription_waitsForIt() {
    final class Probe: Subscriber, Sendable {
      let log = ThreadLog()
      let waits = TimedWaits()
      let upstreamCancelled: DispatchSemaphore
      let fireTimer: @Sendable () -> Void
      let timerThread = LockedState<DispatchSemaphore?>(nil)

      init(upstreamCancelled: DispatchSemaphore, fireTimer: @escaping @Sendable () -> Void) {
        self.upstreamCancelled = upstreamCancelled
        self.fireTimer = fireTimer
      }

      func receive(subscription: any Subscription) {
        let done = runOnThread("timer", fireTimer)
        timerThread.withLock { $0 = done }
        waits.wait(upstreamCancelled)  // the timeout fired and cancelled the upstream
        log.append("receive(subscription:) returns")
      }
      func receive(_ input: Int) -> Subscribers.Demand { .none }
      func receive(completion: Subscribers.Completion<TestError>) { log.append("completion") }
    }
    let cancelled = DispatchSemaphore(value: 0)
    let scheduler = scheduler
    let probe = Probe(upstreamCancelled: cancelled) { scheduler.advance(by: 10) }
    SignallingUpstream<Int, TestError>(cancelled: cancelled).timeout(10, scheduler: scheduler)
      .subscribe(probe)
    if let done = probe.timerThread.withLock({ $0 }) { probe.waits.wait(done) }
    #expect(probe.log.lines == ["receive(subscription:) returns", "completion"])
    #expect(probe.waits.timedOut == 0)
  }

  /// `options` goes with the timers and the deliveries; timers get the minimum tolerance.
  @Test func options_forwardedToTheScheduler() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    source.timeout(10, scheduler: spy, options: SpyOptions(tag: 3)).subscribe(recorder)
    source.send(1)
    spy.base.advance(by: 10)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(spy.calls.contains { $0.kind == .repeating })
    #expect(spy.calls.contains { $0.kind == .now })
    #expect(spy.calls.allSatisfy { $0.options == SpyOptions(tag: 3) })
    #expect(
      spy.calls.filter { $0.kind == .repeating }.allSatisfy { $0.tolerance == spy.minimumTolerance }
    )
  }

  /// As Combine's (OpenCombine's `TimeoutTests.testBasicBehavior`): a timer starts when the
  /// upstream's subscription arrives, another at the first request, another after each value;
  /// each value is scheduled as an action of its own.
  @Test func schedulerCalls_asCombines() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    source.timeout(10, scheduler: spy).subscribe(recorder)
    #expect(spy.calls.map(\.kind) == [.repeating, .repeating])
    source.send(1)
    source.send(2)
    #expect(spy.calls.map(\.kind) == [.repeating, .repeating, .repeating, .now, .repeating, .now])
    spy.base.advance()
    #expect(recorder.values == [1, 2])
  }

  /// The timer holds the subscription, as Combine's does: a subscriber that nobody else holds
  /// still hears the timeout.
  @Test func timer_keepsTheSubscriptionAlive() {
    let listener = ForgetfulListener<Int, TestError>()
    ForgetfulPublisher<Int, TestError>(values: []).timeout(10, scheduler: scheduler)
      .subscribe(listener)
    scheduler.advance(by: 10)
    #expect(listener.completion == .finished)
  }

  /// A cancel after the upstream's completion arrived, before it was delivered, still cancels
  /// the upstream and drops the completion, as Combine's (`testCancelWhileFinishingIsInFlight`).
  @Test func cancel_whileCompletionIsScheduled_cancelsUpstream() throws {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.timeout(10, scheduler: scheduler).subscribe(recorder)
    upstream.send(completion: .finished)
    try #require(recorder.subscription).cancel()
    scheduler.advance(by: 20)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }
}
