import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryCompactMapTests {
  @Test func valueBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: 1).tryCompactMap { $0 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryCompactMap: the upstream sent a value before its subscription")
  }

  @Test func completionBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: nil).tryCompactMap { $0 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryCompactMap: the upstream sent a completion before its subscription")
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in
      upstream.tryCompactMap { value -> String? in
        if value == 0 { throw TestError.thrown }
        return value > 0 ? "v\(value)" : nil
      }
    },
    inputs: [1, -1, 2, -2, 3],
    expected: ["v1", "v2", "v3"],
    error: TestError(code: 1),
    description: "TryCompactMap"
  )

  @Test func values_areTransformedAndNilsDropped() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFails_failurePassesThroughAsAnyError() { scenarios.upstreamFails() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }
  @Test func thrownError_cancelsUpstreamAndFailsOnce() { scenarios.thrown(failingInput: 0) }

  @Test func transform_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, any Error>) in
      upstream.tryCompactMap {
        _ = token
        return $0
      }.subscribe(recorder)
    }
  }

  @Test func tryCompactMapThenCompactMap_fusesIntoOneTryCompactMap() {
    let parsed = ["1", "x", "30"].publisher.tryCompactMap { (text: String) -> Int? in Int(text) }
    let fused = parsed.compactMap { (value: Int) -> Int? in value < 10 ? value : nil }
    #expect(
      type(of: fused) == Publishers.TryCompactMap<Publishers.Sequence<[String], Never>, Int>.self
    )
    let recorder = RecordingSubscriber<Int, any Error>()
    fused.subscribe(recorder)
    #expect(recorder.values == [1])
  }

  @Test func tryCompactMap_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: { [1, -1, 2].publisher.tryCompactMap { $0 > 0 ? $0 : nil } },
      makeFailingPublisher: {
        [1, 2].publisher.tryCompactMap { _ -> Int? in throw TestError.thrown }
      },
      makeLongPublisher: {
        (0..<2_000_000).map { $0 }.publisher.tryCompactMap { $0.isMultiple(of: 2) ? $0 : nil }
      }
    )
    .run()
    .expectAllPassed()
  }
}
