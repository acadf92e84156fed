import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DebounceTests {
  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func burstThenQuiet_emitsOnlyTheLastValue() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 1)
    upstream.send(2)
    scheduler.advance(by: 2)
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: 1)
    #expect(recorder.events == [.subscription, .value(2)])
    scheduler.advance(by: 10)
    #expect(recorder.values == [2])
  }

  @Test func spacedValues_eachEmitted() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 5)
    upstream.send(2)
    scheduler.advance(by: 5)
    #expect(recorder.values == [1, 2])
  }

  @Test func requestsUnlimitedUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    #expect(upstream.requests == [.demand(.unlimited)])
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(recorder.subscriptionDescription == "Debounce")
  }

  @Test func demandNone_dueValueDropped() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 3)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    scheduler.advance(by: 3)
    #expect(recorder.events == [.subscription])
    upstream.send(2)
    scheduler.advance(by: 3)
    #expect(recorder.values == [2])
  }

  @Test func demandMaxOne_secondValueDropped() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 3)
    upstream.send(2)
    scheduler.advance(by: 3)
    #expect(recorder.values == [1])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandFromReceive_allowsTheNextValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 3)
    upstream.send(2)
    scheduler.advance(by: 3)
    #expect(recorder.values == [1, 2])
  }

  @Test func finishWithPendingValue_dropsItAndFinishesOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.finished)])
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func failureAfterValue_delivered() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 3)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance()
    #expect(
      recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))]
    )
  }

  @Test func failureBeforeValues_delivered() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func cancelBeforeDue_cancelsTimerAndUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    #expect(scheduler.pendingActionCount == 1)
    recorder.cancel()
    #expect(scheduler.pendingActionCount == 0)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    scheduler.advance(by: 3)
    #expect(recorder.events == [.subscription])
  }

  @Test func supersededTimer_cancelled() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(scheduler.pendingActionCount == 1)
    scheduler.advance(by: 3)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    scheduler.advance()
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func cancelFromReceive_stopsCompletion() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    scheduler.advance(by: 3)
    upstream.send(2)
    scheduler.advance(by: 3)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func requestFromReceive_allowsTheNextValue() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    scheduler.advance(by: 3)
    upstream.send(2)
    scheduler.advance(by: 3)
    #expect(recorder.values == [1, 2])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(1)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(1)
      upstream.send(completion: .finished)
    }
    scheduler.advance()
    #expect(recorder.completion == .finished)
    #expect(inner == nil)
  }

  @Test func concurrentSends_emitOneOfTheLastValues() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    subject.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<500 { subject.send(side * 500 + value) }
    }
    scheduler.advance(by: 3)
    #expect(recorder.values.count == 1)
    #expect([499, 999, 1_499, 1_999].contains(recorder.values.first ?? -1))
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func requestNone_isIgnored_asCombineDoes() {
    let scheduler = TestScheduler()
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    subject.debounce(for: 1, scheduler: scheduler).subscribe(recorder)
    recorder.subscription?.request(.none)
    subject.send(1)
    scheduler.advance(by: 1)
    #expect(recorder.values.isEmpty)
  }

  @Test func immediateScheduler_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .debounce(for: 1, scheduler: ImmediateScheduler.shared)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError())
          .debounce(for: 1, scheduler: ImmediateScheduler.shared)
          .eraseToAnyPublisher()
      }
    )
    .run(TimingRules.droppingOperators)
    .expectAllPassed(skipping: ["SC-3.01", "SC-3.02"])
  }

  /// A value made ready while the subscriber is still receiving the previous one, then replaced
  /// by a later one before it went out, gives its unit of demand back (a concurrent scheduler
  /// does this; here the subscriber's `receive` advances the scheduler to interleave
  /// deterministically). With demand for three values the subscriber gets three; the replaced
  /// value's unit used to be lost, so the third value was dropped.
  @Test func readyValueReplacedWhileDelivering_demandGivenBack() {
    let upstream = upstream
    let scheduler = scheduler
    let first = LockedState(true)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(3)) { _ in
      let isFirst = first.withLock { isFirst in
        defer { isFirst = false }
        return isFirst
      }
      guard isFirst else { return .none }
      upstream.send(2)
      scheduler.advance(by: 3)  // 2 is ready; this thread is still delivering 1
      upstream.send(3)
      scheduler.advance(by: 3)  // 3 replaces 2
      return .none
    }
    upstream.debounce(for: 3, scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 3)
    #expect(recorder.values == [1, 3])
    upstream.send(4)
    scheduler.advance(by: 3)
    #expect(recorder.values == [1, 3, 4])
    #expect(recorder.violations.isEmpty)
  }

  /// `options` goes with the timers, which get its minimum tolerance; the completion is
  /// scheduled without them, as Combine's (OpenCombine's `DebounceTests.testFinishBeforeDue`).
  @Test func options_forwardedToTheScheduler() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    source.debounce(for: 3, scheduler: spy, options: SpyOptions(tag: 1)).subscribe(recorder)
    source.send(1)
    spy.base.advance(by: 3)
    source.send(completion: .finished)
    spy.base.advance()
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(spy.calls.map(\.kind) == [.repeating, .now])
    #expect(spy.calls.map(\.options) == [SpyOptions(tag: 1), nil])
    #expect(spy.calls[0].tolerance == spy.minimumTolerance)
  }

  /// The timer holds the subscription, as Combine's does: the value reaches a subscriber that
  /// nobody else holds.
  @Test func timer_keepsTheSubscriptionAlive() {
    let listener = ForgetfulListener<Int, TestError>()
    ForgetfulPublisher<Int, TestError>(values: [7]).debounce(for: 5, scheduler: scheduler)
      .subscribe(listener)
    scheduler.advance(by: 5)
    #expect(listener.values == [7])
  }

  // The differential oracle (issue 15): `debounce -`. As Combine's, the mirror shows the
  // downstream, its demand not yet met and the pending value.
  @Test func mirror_downstreamDemandAndCurrentValue() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    upstream.debounce(for: 2, scheduler: scheduler).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(7)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "downstreamDemand", "currentValue"])
    let values = mirror.children.map { String(describing: $0.value) }
    #expect(values.dropFirst() == ["max(2)", "Optional(7)"])
  }

  /// Once the upstream completed, a request changes nothing, as in Combine (no value can come
  /// any more; the mirror's demand shows it). Found by the differential oracle once it classified
  /// every finding: `debounce - f0 r0.u`.
  @Test func request_afterTheUpstreamCompleted_isIgnored() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.debounce(for: 2, scheduler: scheduler).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(completion: .finished)
    subscription.request(.unlimited)
    let demand = Mirror(reflecting: subscription).children.first { $0.label == "downstreamDemand" }
    #expect(demand.map { String(describing: $0.value) } == "max(0)")
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }
}
