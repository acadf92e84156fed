import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ThrottleTests {
  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func firstValue_emittedAtOnceOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    scheduler.advance()
    #expect(recorder.values == [1])
    #expect(recorder.subscriptionDescription == "Throttle")
  }

  @Test func subscription_mirrorsNoChildren_andPlaysAsThrottle() throws {
    // As Combine's: no mirror children, and the description as the playground display.
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(Mirror(reflecting: subscription).children.isEmpty)
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == "Throttle")
  }

  @Test func latestTrue_emitsLatestValueOfEachInterval() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance()
    scheduler.advance(by: 2)
    upstream.send(2)
    upstream.send(3)
    scheduler.advance(by: 7)
    #expect(recorder.values == [1])
    scheduler.advance(by: 1)
    #expect(recorder.values == [1, 3])
  }

  @Test func latestFalse_emitsFirstValueOfEachInterval() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: false).subscribe(recorder)
    upstream.send(1)
    scheduler.advance()
    scheduler.advance(by: 2)
    upstream.send(2)
    upstream.send(3)
    scheduler.advance(by: 8)
    #expect(recorder.values == [1, 2])
  }

  @Test func valueAfterQuietInterval_emittedAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 20)
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [1, 2])
  }

  @Test func requestsUnlimitedUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func demandNone_valuesDropped() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [2])
  }

  @Test func demandMaxOne_onlyOneValue() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 1)
    upstream.send(2)
    scheduler.advance(by: 20)
    #expect(recorder.values == [1])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandFromReceive_allowsTheNextValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 1)
    upstream.send(2)
    scheduler.advance(by: 20)
    #expect(recorder.values == [1, 2])
  }

  @Test func finishWithHeldValue_sendsItThenFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 1)
    upstream.send(2)
    upstream.send(completion: .finished)
    scheduler.advance(by: 5)
    #expect(recorder.events == [.subscription, .value(1)])
    scheduler.advance(by: 5)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func finishWithoutHeldValue_deliveredAtOnceOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func failureAfterValue_delivered() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: false).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance()
    #expect(
      recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))]
    )
  }

  @Test func cancelWithHeldValue_nothingDelivered() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    recorder.cancel()
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    scheduler.advance()
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func cancelFromReceive_dropsCompletion() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(completion: .finished)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func requestFromReceive_allowsTheNextValue() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    scheduler.advance(by: 1)
    upstream.send(2)
    scheduler.advance(by: 10)
    #expect(recorder.values == [1, 2])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
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
      upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(1)
      upstream.send(completion: .finished)
    }
    scheduler.advance(by: 10)
    #expect(recorder.completion == .finished)
    #expect(inner == nil)
  }

  @Test func concurrentSends_latestValueEmittedOnce() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    subject.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<500 { subject.send(side * 500 + value) }
    }
    scheduler.advance(by: 30)
    // Every value arrived before the first emission ran, so it sends the latest one only.
    #expect(recorder.values.count == 1)
    #expect([499, 999, 1_499, 1_999].contains(recorder.values.first ?? -1))
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelBeforeTheUpstreamSubscription_cancelsItWhenItArrives_asCombineDoes() throws {
    let upstream = HoldingPublisher<Int>()
    upstream.throttle(for: 1, scheduler: TestScheduler(), latest: true)
      .subscribe(RecordingSubscriber<Int, Never>())
    // Combine's own test cancels the operator's subscriber, which is its subscription too.
    let inner = try #require(upstream.subscriber as? any Subscription)
    inner.cancel()
    let late = LateSubscription()
    upstream.subscriber?.receive(subscription: late)
    #expect(late.calls == ["cancel"])
  }

  @Test func requestNone_isIgnored_asCombineDoes() {
    let scheduler = TestScheduler()
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    subject.throttle(for: 1, scheduler: scheduler, latest: true).subscribe(recorder)
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
          .throttle(for: 1, scheduler: ImmediateScheduler.shared, latest: false)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError())
          .throttle(for: 1, scheduler: ImmediateScheduler.shared, latest: false)
          .eraseToAnyPublisher()
      }
    )
    .run(TimingRules.droppingOperators)
    .expectAllPassed(skipping: ["SC-3.01", "SC-3.02"])
  }

  /// One value at a time with `latest: true` (what `.values` asks for): as Combine's, the held
  /// value takes the only unit of demand, so later values of the interval are dropped rather
  /// than replace it.
  @Test func latestTrueOneAtATime_sendsTheIntervalsFirstValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance()
    scheduler.advance(by: 2)
    upstream.send(2)
    upstream.send(3)
    scheduler.advance(by: 8)
    #expect(recorder.values == [1, 2])
    upstream.send(4)
    upstream.send(5)
    scheduler.advance(by: 10)
    #expect(recorder.values == [1, 2, 4])
    #expect(recorder.violations.isEmpty)
  }

  /// Requested one at a time from outside `receive`, as `for await … in .values` does: the same.
  @Test func latestTrueRequestAfterEachValue_sendsTheIntervalsFirstValue() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance()
    recorder.request(.max(1))
    upstream.send(2)
    upstream.send(3)
    scheduler.advance(by: 10)
    #expect(recorder.values == [1, 2])
  }

  /// A value made ready while the subscriber is still receiving the previous one, then replaced
  /// by the next interval's value before it went out, gives its unit of demand back (a
  /// concurrent scheduler does this; here the subscriber's `receive` advances the scheduler to
  /// interleave deterministically). With demand for three values the subscriber gets three; the
  /// replaced value's unit used to be lost, so the third value was dropped.
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
      scheduler.advance(by: 10)  // 2 is ready; this thread is still delivering 1
      upstream.send(3)
      scheduler.advance(by: 10)  // 3 replaces 2
      return .none
    }
    upstream.throttle(for: 10, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(1)
    scheduler.advance()
    #expect(recorder.values == [1, 3])
    upstream.send(4)
    scheduler.advance(by: 10)
    #expect(recorder.values == [1, 3, 4])
    #expect(recorder.violations.isEmpty)
  }

  /// Throttle takes no options (as in Combine): it passes none.
  @Test func noOptions_passedToTheScheduler() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    source.throttle(for: 10, scheduler: spy, latest: true).subscribe(recorder)
    source.send(1)
    spy.base.advance()
    source.send(2)
    spy.base.advance(by: 10)
    #expect(recorder.values == [1, 2])
    #expect(!spy.calls.isEmpty)
    #expect(spy.calls.allSatisfy { $0.options == nil })
  }

  /// As Combine's (OpenCombine's `ThrottleTests` record each call): the clock is read when the
  /// subscription is made, when the upstream's subscription arrives, at each event while
  /// subscribed and when a value is emitted; an emission after a cancel doesn't read it.
  @Test func clockReads_asCombines() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    source.throttle(for: 10, scheduler: spy, latest: true).subscribe(recorder)
    #expect(spy.clockReads == 2)
    source.send(1)
    #expect(spy.clockReads == 3)
    spy.base.advance()
    #expect(spy.clockReads == 4)
    source.send(2)
    #expect(spy.clockReads == 5)
    recorder.cancel()
    spy.base.advance(by: 10)
    source.send(completion: .finished)
    #expect(spy.clockReads == 5)
    #expect(recorder.values == [1])
  }

  // The differential oracle (issue 15): `throttle(latest:true) -`. As Combine's, the upstream
  // is asked for `.unlimited` before the subscriber receives its subscription.
  @Test func upstreamRequested_beforeTheSubscriberIsSubscribed() {
    let seen = RequestsSeen()
    let upstream = self.upstream
    let subscriber = AnySubscriber<Int, TestError>(
      receiveSubscription: { _ in seen.requests = upstream.requests },
      receiveValue: { _ in .none },
      receiveCompletion: { _ in }
    )
    upstream.throttle(for: 2, scheduler: scheduler, latest: true).subscribe(subscriber)
    #expect(seen.requests == [.demand(.unlimited)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  /// A synchronous upstream's completion, on an immediate scheduler, comes during that request:
  /// it waits until the subscriber has its subscription (Combine would deliver it first).
  @Test func completionDuringTheFirstRequest_waitsForTheSubscription() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    Publishers.Sequence<[Int], TestError>(sequence: [1])
      .throttle(for: 2, scheduler: ImmediateScheduler.shared, latest: true)
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  // The oracle: `throttle(latest:true) 1 v0.4 v0.0 t3`. As Combine's: with demand for one
  // value, the interval's first value is published and the later one dropped.
  @Test func latestTrue_demandSpent_laterValueIsDropped() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.throttle(for: 2, scheduler: scheduler, latest: true).subscribe(recorder)
    upstream.send(4)
    upstream.send(0)
    scheduler.advance(by: 3)
    #expect(recorder.values == [4])
  }
}

/// What the upstream had been asked for when the subscriber received its subscription.
private final class RequestsSeen: @unchecked Sendable {
  var requests: [TestPublisher<Int, TestError>.Request] = []
}

/// Keeps its subscriber without sending it a subscription.
private final class HoldingPublisher<Output>: Publisher {
  typealias Failure = Never
  private(set) var subscriber: (any Subscriber<Output, Never>)?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    self.subscriber = subscriber
  }
}

/// Records the calls it receives.
private final class LateSubscription: Subscription {
  private(set) var calls: [String] = []

  func request(_ demand: Subscribers.Demand) { calls.append("request \(demand)") }
  func cancel() { calls.append("cancel") }
}
