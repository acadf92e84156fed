import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CompactMapTests {
  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in
      upstream.compactMap { $0 > 0 ? "v\($0)" : nil }
    },
    inputs: [1, -1, 2, -2, 3],
    expected: ["v1", "v2", "v3"],
    error: TestError(code: 1),
    description: "TestPublisher"
  )

  @Test func values_areTransformedAndNilsDropped() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFails_failurePassesThrough() { scenarios.upstreamFails() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func nilResult_returnsOneDemandUpstream() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.compactMap { $0 > 0 ? $0 : nil }.subscribe(recorder)
    upstream.send(-1)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(4)
    #expect(recorder.values == [4])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func transform_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, Never>) in
      upstream.compactMap { (value: Int) -> Int? in
        _ = token
        return value
      }
      .subscribe(recorder)
    }
  }

  @Test func inner_describesItselfAsCompactMap() {
    let spy = InnerSpy<Int, Never>()
    spy.compactMap { $0 }.subscribe(RecordingSubscriber<Int, Never>())
    #expect(spy.descriptions == ["CompactMap"])
    #expect(spy.mirrors == [[]])  // as Combine: no children
  }

  @Test func compactMapThenCompactMapAndMap_fuseIntoOneCompactMap() {
    // `Deferred` hides the upstream's type: `Publishers.Sequence` has its own `compactMap`.
    let parsed = Deferred { ["1", "x", "3", "40"].publisher }
      .compactMap { (text: String) -> Int? in Int(text) }
    let small = parsed.compactMap { (value: Int) -> Int? in value < 10 ? value : nil }
    let fused = small.map { (value: Int) -> Int in value * 2 }
    #expect(
      type(of: fused)
        == Publishers.CompactMap<Deferred<Publishers.Sequence<[String], Never>>, Int>.self
    )
    let recorder = RecordingSubscriber<Int, Never>()
    fused.subscribe(recorder)
    #expect(recorder.values == [2, 6])
  }

  @Test func compactMap_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: { [1, -1, 2].publisher.compactMap { $0 > 0 ? $0 : nil } },
      makeLongPublisher: {
        (0..<2_000_000).map { $0 }.publisher.compactMap { $0.isMultiple(of: 2) ? $0 : nil }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}
