import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MapTests {
  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in upstream.map { $0 * 10 } },
    inputs: [1, 2, 3],
    expected: ["10", "20", "30"],
    error: TestError(code: 1),
    description: "TestPublisher"
  )

  @Test func values_areTransformed() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFails_failurePassesThrough() { scenarios.upstreamFails() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func transform_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, Never>) in
      upstream.map {
        _ = token
        return $0
      }.subscribe(recorder)
    }
  }

  @Test func inner_describesItselfAsMap() {
    let spy = InnerSpy<Int, Never>()
    spy.map { "\($0)" }.subscribe(RecordingSubscriber<String, Never>())
    #expect(spy.descriptions == ["Map"])
    #expect(spy.mirrors == [[]])  // as Combine: no children
  }

  @Test func mapOfMap_fusesIntoOneMap() {
    // `Deferred` hides the upstream's type: `Publishers.Sequence` has its own `map`.
    let fused = Deferred { [1, 2].publisher }.map { $0 + 1 }.map { $0 * 2 }
    #expect(
      type(of: fused) == Publishers.Map<Deferred<Publishers.Sequence<[Int], Never>>, Int>.self
    )
    let recorder = RecordingSubscriber<Int, Never>()
    fused.subscribe(recorder)
    #expect(recorder.values == [4, 6])
  }

  @Test func tryMapOfMap_fusesIntoOneTryMap() {
    let fused = [1, 2].publisher.map { $0 + 1 }.tryMap { $0 * 2 }
    #expect(type(of: fused) == Publishers.TryMap<Publishers.Sequence<[Int], Never>, Int>.self)
    let recorder = RecordingSubscriber<Int, any Error>()
    fused.subscribe(recorder)
    #expect(recorder.values == [4, 6])
  }

  @Test func replaceNil_replacesOnlyNil() {
    let replaced = Deferred { [1, nil, 3].publisher }.replaceNil(with: 0)
    #expect(
      type(of: replaced) == Publishers.Map<Deferred<Publishers.Sequence<[Int?], Never>>, Int>.self
    )
    let recorder = RecordingSubscriber<Int, Never>()
    replaced.subscribe(recorder)
    #expect(
      recorder.events == [.subscription, .value(1), .value(0), .value(3), .completion(.finished)]
    )
  }

  @Test func replaceNil_scenarios() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int?, TestError>) in upstream.replaceNil(with: -1) },
      inputs: [nil, 2, nil],
      expected: ["-1", "2", "-1"],
      error: TestError(code: 2),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func map_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.map { $0 * 2 } },
      makeLongPublisher: { (0..<1_000_000).map { $0 }.publisher.map { $0 * 2 } }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func map_failing_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        [1, 2].publisher.setFailureType(to: TestError.self).map { $0 + 1 }
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).map { $0 + 1 }.eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}
