import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MaterializeTests {
  typealias Item = MaterializedEvent<Int, TestError>

  let upstream = TestPublisher<Int, TestError>()

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_mirrorsDownstreamFinishedAndUpstream() throws {
    let recorder = RecordingSubscriber<MaterializedEvent<Int, TestError>, Never>(
      initialDemand: .max(1)
    )
    upstream.materialize().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Materialize")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "Materialize")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "finished", "upstreamSubscription"])
    #expect(
      children().first?.value as? RecordingSubscriber<MaterializedEvent<Int, TestError>, Never>
        === recorder
    )
    #expect(
      children().dropFirst().map { String(describing: $0.value) }
        == ["false", "Optional(TestPublisher)"]
    )
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "true", "nil"])
  }

  // Item 6 of issue 39: CombineExt code names the element `Event` and matches `.value`,
  // `.failure` and `.finished` (as its `MaterializeTests` do).
  @Test func elements_areNamedEventAsInCombineExt() {
    var received: [Event<String, TestError>] = []
    let subject = PassthroughSubject<String, TestError>()
    let cancellable = subject.materialize().sink { received.append($0) }
    subject.send("Hello")
    subject.send(completion: .failure(TestError(code: 9)))
    #expect(received == [.value("Hello"), .failure(TestError(code: 9))])
    let finished: [Event<String, TestError>] = [.finished]
    #expect(
      Just("x").setFailureType(to: TestError.self).materialize().values()
        is AnyPublisher<String, Never>
    )
    #expect(finished.map(\.description) == ["finished"])
    cancellable.cancel()
  }

  @Test func valuesThenFinish_areEventsThenTheFinish() {
    let recorder = RecordingSubscriber<Item, Never>()
    upstream.materialize().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(
      recorder.events == [
        .subscription, .value(.value(1)), .value(.value(2)), .value(.finished),
        .completion(.finished),
      ]
    )
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(recorder.violations.isEmpty)
    #expect(recorder.subscriptionDescription == "Materialize")
  }

  @Test func failure_isAValueThenTheFinish() {
    let recorder = RecordingSubscriber<Item, Never>()
    upstream.materialize().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(
      recorder.events == [
        .subscription, .value(.value(1)), .value(.failure(TestError())), .completion(.finished),
      ]
    )
  }

  @Test func noDemandLeft_completionEventWaitsForARequest() {
    let recorder = RecordingSubscriber<Item, Never>(initialDemand: .max(2))
    upstream.materialize().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .none)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(.value(1)), .value(.value(2))])
    recorder.request(.max(1))
    #expect(
      recorder.events == [
        .subscription, .value(.value(1)), .value(.value(2)), .value(.failure(TestError())),
        .completion(.finished),
      ]
    )
    // The request that made room for the event is not passed to the finished upstream.
    #expect(upstream.requests == [.demand(.max(2))])
    #expect(recorder.violations.isEmpty)
    #expect(upstream.violations.isEmpty)
  }

  @Test func demandNone_nothingRequestedOrDelivered() {
    let recorder = RecordingSubscriber<Item, Never>(initialDemand: nil)
    upstream.materialize().subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(3))
    #expect(recorder.events == [.subscription, .value(.finished), .completion(.finished)])
    #expect(upstream.requests.isEmpty)
  }

  @Test func demandToppedUpFromReceive_everythingArrives() {
    let recorder = RecordingSubscriber<Item, Never>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.materialize().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(
      recorder.events == [
        .subscription, .value(.value(1)), .value(.value(2)), .value(.finished),
        .completion(.finished),
      ]
    )
    #expect(upstream.requests == [.demand(.max(1))])
    #expect(upstream.violations.isEmpty)
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsUpstreamAndStopsDelivery() {
    let recorder = RecordingSubscriber<Item, Never>()
    upstream.materialize().subscribe(recorder)
    upstream.send(1)
    recorder.cancel()
    recorder.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(.value(1))])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelWhileTheEndIsHeld_endIsNeverDelivered() {
    let recorder = RecordingSubscriber<Item, Never>(initialDemand: nil)
    upstream.materialize().subscribe(recorder)
    upstream.send(completion: .finished)
    recorder.cancel()
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_nothingMoreArrives() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Item, Never>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.materialize().subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(.value(1))])
    #expect(upstream.requests.last == .cancel)
    holder.subscription = nil
  }

  @Test func subscription_releasedAfterCompletionAndAfterCancel() {
    for ending in 0..<3 {
      let upstream = TestPublisher<Int, TestError>()
      let recorder = RecordingSubscriber<Item, Never>(initialDemand: .max(1))
      weak var subscription: AnyObject?
      do {
        upstream.materialize().subscribe(recorder)
        subscription = recorder.subscription as AnyObject?
        #expect(subscription != nil)
      }
      upstream.send(1)
      switch ending {
      case 0:
        recorder.cancel()
      case 1:
        // The end is held (no demand left), then cancelled.
        upstream.send(completion: .finished)
        #expect(subscription != nil)
        recorder.cancel()
      default:
        upstream.send(completion: .finished)
        recorder.request(.max(1))
        #expect(recorder.completion == .finished)
      }
      #expect(subscription == nil, "ending \(ending)")
    }
  }

  @Test func materialize_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2].publisher.materialize() },
      makeLongPublisher: { (0..<1_000_000).map { $0 }.publisher.materialize() }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}
