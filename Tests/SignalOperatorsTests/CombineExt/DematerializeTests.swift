import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DematerializeTests {
  typealias Item = MaterializedEvent<Int, TestError>

  let upstream = TestPublisher<Item, Never>()

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_mirrorsDownstreamFinishedAndUpstream() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.dematerialize().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "Dematerialize")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "finished", "upstreamSubscription"])
    #expect(children().first?.value as? RecordingSubscriber<Int, TestError> === recorder)
    #expect(
      children().dropFirst().map { String(describing: $0.value) }
        == ["false", "Optional(TestPublisher)"]
    )
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "true", "nil"])
  }

  @Test func valueEvents_passThroughWithTheSubscribersDemand() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Item, Never>) in upstream.dematerialize() },
      inputs: [.value(1), .value(2), .value(3)],
      expected: ["1", "2", "3"],
      error: nil,
      description: "Dematerialize"
    ).runAll()
  }

  @Test func failureEvent_failsAndCancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dematerialize().subscribe(recorder)
    upstream.send(.value(1))
    upstream.send(.failure(TestError(code: 3)))
    upstream.send(.value(2))
    upstream.send(.finished)
    upstream.send(completion: .finished)
    #expect(
      recorder.events == [.subscription, .value(1), .completion(.failure(TestError(code: 3)))]
    )
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.violations.isEmpty)
  }

  @Test func finishedEvent_finishesAndCancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dematerialize().subscribe(recorder)
    upstream.send(.finished)
    upstream.send(.value(2))
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func limitedDemand_completionEventTakesOneDemandUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    upstream.dematerialize().subscribe(recorder)
    upstream.send(.value(1))
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(.failure(TestError()))
    #expect(upstream.violations.isEmpty)
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
  }

  @Test func subscription_releasedAfterACompletionEvent() {
    let recorder = RecordingSubscriber<Int, TestError>()
    weak var subscription: AnyObject?
    do {
      upstream.dematerialize().subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    upstream.send(.failure(TestError()))
    #expect(subscription == nil)
  }

  @Test func roundTrip_givesBackTheOriginal() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let source = TestPublisher<Int, TestError>()
    source.materialize().dematerialize().subscribe(recorder)
    source.send(1)
    source.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
  }

  @Test func dematerialize_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: { [Item.value(1), .value(2)].publisher.dematerialize() },
      makeFailingPublisher: { [Item.failure(TestError())].publisher.dematerialize() },
      makeLongPublisher: {
        (0..<1_000_000).map { Item.value($0) }.publisher.dematerialize()
      }
    )
    .run()
    .expectAllPassed()
  }
}
