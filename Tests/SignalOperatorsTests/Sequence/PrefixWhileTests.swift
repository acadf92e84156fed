import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PrefixWhileTests {
  @Test func subscription_mirrorsItsDownstream() throws {
    // As Combine's `PrefixWhile`: the downstream.
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    TestPublisher<Int, TestError>().prefix { $0 < 3 }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream"])
    #expect(mirror.children.first?.value as? RecordingSubscriber<Int, TestError> === recorder)
  }

  @Test func valueBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: 1).prefix { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, Never>())
    }
    expectTrap(trap, "PrefixWhile: the upstream sent a value before its subscription")
  }

  @Test func requestBeforeSubscription_traps_asCombineDoes() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyRequestPublisher<Int>().prefix { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, Never>())
    }
    expectTrap(trap, "PrefixWhile: request(_:) before the upstream's subscription arrived")
  }

  @Test func completionBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: nil).prefix { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, Never>())
    }
    expectTrap(trap, "PrefixWhile: the upstream sent a completion before its subscription")
  }

  let upstream = TestPublisher<Int, TestError>()

  @Test func prefixWhile_passesLeadingValuesThenFinishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 5, 1].publisher.prefix(while: { $0 < 3 }).subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func failingValue_cancelsUpstreamAndFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(1)
    upstream.send(4)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func demandNone_requestsNothingUntilAsked() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
    upstream.send(1)
    #expect(recorder.values == [1])
  }

  @Test func demandMaxOne_isPassedOnAsIs() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.max(1))])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandToppedUpFromReceive_deliversEveryValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    for value in 0...3 { upstream.send(value) }
    #expect(
      recorder.events == [.subscription, .value(0), .value(1), .value(2), .completion(.finished)]
    )
    #expect(upstream.violations.isEmpty)
  }

  @Test func requestFromReceive_isPassedUpstream() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(4))
      return .none
    }
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(4))])
  }

  @Test func upstreamFinishesBeforeFailingValue_finishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func upstreamFailsBeforeValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func upstreamFailsAfterValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(2)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(2), .completion(.failure(TestError()))])
  }

  @Test func cancelBeforeValues_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(5)
    subscription?.cancel()
    subscription?.request(.max(1))
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func predicate_isReleasedAfterCompletion() {
    weak var captured: CallCounter?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      let counter = CallCounter()
      captured = counter
      upstream.prefix(while: { _ in counter.increment() < 5 }).subscribe(recorder)
    }
    #expect(captured != nil)
    upstream.send(completion: .finished)
    #expect(captured == nil)
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterFailingValue() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    upstream.send(9)
    #expect(inner == nil)
  }

  @Test func description_isPrefixWhile() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "PrefixWhile")
  }

  @Test func prefixWhile_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0, 1, 2, 3, 0]).prefix(while: { $0 < 3 })
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError())).prefix(while: {
          $0 < 3
        })
        .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<1_000_010)
          .prefix(while: { $0 < 1_000_000 })
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
