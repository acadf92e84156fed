import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct RemoveDuplicatesTests {
  @Test func subscription_wrapsTheUpstreams_andMirrorsDownstreamAndLast() throws {
    // As Combine's `RemoveDuplicates` (OpenCombine's `testRemoveDuplicatesReflection`): the
    // subscriber is the subscription, described by the operator, showing the last value.
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.removeDuplicates().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "RemoveDuplicates")
    upstream.send(4)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "last"])
    #expect(mirror.children.dropFirst().first.map { String(describing: $0.value) } == "Optional(4)")
  }

  @Test func requestBeforeSubscription_traps_asCombineDoes() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyRequestPublisher<Int>().removeDuplicates()
        .subscribe(RecordingSubscriber<Int, Never>())
    }
    expectTrap(trap, "RemoveDuplicates: request(_:) before the upstream's subscription arrived")
  }

  @Test func requestNone_traps_asCombineDoes() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      TestPublisher<Int, Never>().removeDuplicates().subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func cancelAfterTheCompletion_reachesNothing() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.removeDuplicates().subscribe(recorder)
    upstream.send(completion: .finished)
    recorder.subscription?.cancel()
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(!upstream.requests.contains(.cancel))
  }

  @Test func valueBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: 1).removeDuplicates()
        .subscribe(RecordingSubscriber<Int, Never>())
    }
    expectTrap(trap, "RemoveDuplicates: the upstream sent a value before its subscription")
  }

  @Test func completionBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: nil).removeDuplicates()
        .subscribe(RecordingSubscriber<Int, Never>())
    }
    expectTrap(trap, "RemoveDuplicates: the upstream sent a completion before its subscription")
  }

  @Test func eventsAfterTheCompletion_areIgnored() {
    // Oracle (misbehaving upstream): `removeDuplicates - e0.1 V0.2`, `- f0 F0`, `- f0 E0.2`:
    // nothing reaches the subscriber after the completion (I11).
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited)
    AfterTheEndPublisher(
      events: [.failure(TestError()), .value(2), .finished, .failure(TestError(code: 2))]
    )
    .removeDuplicates()
    .subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func secondSubscription_isCancelledAndNotForwarded() {
    let first = SubscriptionProbe()
    let second = SubscriptionProbe()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    TwoSubscriptionsPublisher<Int>(first: first, second: second).removeDuplicates()
      .subscribe(recorder)
    #expect(recorder.events == [.subscription])
    #expect(second.cancelled)
    #expect(!first.cancelled)
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in upstream.removeDuplicates() },
    inputs: [1, 1, 2, 2, 2, 1],
    expected: ["1", "2", "1"],
    error: TestError(code: 1),
    description: "RemoveDuplicates"
  )

  @Test func consecutiveDuplicates_areRemoved() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFails_failurePassesThrough() { scenarios.upstreamFails() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func duplicate_returnsOneDemandUpstream() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.removeDuplicates().subscribe(recorder)
    upstream.send(1)
    upstream.send(1)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(2)
    #expect(recorder.values == [1, 2])
    #expect(upstream.outstandingDemand == .none)
  }

  @Test func predicate_comparesWithPreviousUpstreamValue() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 3, 10, 11].publisher.removeDuplicates { abs($0 - $1) <= 1 }.subscribe(recorder)
    #expect(recorder.values == [1, 10])
  }

  @Test func eachSubscription_startsAfresh() {
    let publisher = [1, 1, 2].publisher.removeDuplicates()
    let first = RecordingSubscriber<Int, Never>()
    let second = RecordingSubscriber<Int, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
  }

  @Test func predicate_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, Never>) in
      upstream.removeDuplicates {
        _ = token
        return $0 == $1
      }.subscribe(recorder)
    }
  }

  @Test func inner_describesItselfAsRemoveDuplicates() {
    let spy = InnerSpy<Int, Never>()
    spy.removeDuplicates().subscribe(RecordingSubscriber<Int, Never>())
    #expect(spy.descriptions == ["RemoveDuplicates"])
  }

  @Test func removeDuplicates_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 1, 2, 3, 3].publisher.removeDuplicates() },
      makeLongPublisher: { (0..<1_000_000).map { $0 }.publisher.removeDuplicates() }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}

/// A publisher that breaks the contract: after its subscription it sends `events` whatever the
/// demand, including values and completions after its first completion.
private struct AfterTheEndPublisher: Publisher {
  typealias Output = Int
  typealias Failure = TestError

  enum Event {
    case value(Int)
    case finished
    case failure(TestError)
  }

  let events: [Event]

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
    subscriber.receive(subscription: SubscriptionProbe())
    for event in events {
      switch event {
      case .value(let value): _ = subscriber.receive(value)
      case .finished: subscriber.receive(completion: .finished)
      case .failure(let error): subscriber.receive(completion: .failure(error))
      }
    }
  }
}
