import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FilterTests {
  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in upstream.filter { $0 > 0 } },
    inputs: [1, -1, 2, -2, 3],
    expected: ["1", "2", "3"],
    error: TestError(code: 1),
    description: "TestPublisher"
  )

  @Test func values_areFiltered() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFails_failurePassesThrough() { scenarios.upstreamFails() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func droppedValue_returnsOneDemandUpstream() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.filter { $0 > 0 }.subscribe(recorder)
    upstream.send(-1)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(-2)
    upstream.send(5)
    #expect(recorder.values == [5])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.requests == [.demand(.max(1))])
    #expect(upstream.violations.isEmpty)
  }

  @Test func predicate_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, Never>) in
      upstream.filter {
        _ = token
        return $0 > 0
      }.subscribe(recorder)
    }
  }

  @Test func inner_describesItselfAsFilter() {
    let spy = InnerSpy<Int, Never>()
    spy.filter { $0 > 0 }.subscribe(RecordingSubscriber<Int, Never>())
    #expect(spy.descriptions == ["Filter"])
    #expect(spy.mirrors == [[]])  // as Combine: no children
  }

  @Test func filterOfFilter_fusesIntoOneFilter() {
    // `Deferred` hides the upstream's type: `Publishers.Sequence` has its own `filter`.
    let fused = Deferred { (1...10).publisher }.filter { $0 > 2 }.filter { $0 < 6 }
    #expect(
      type(of: fused)
        == Publishers.Filter<Deferred<Publishers.Sequence<ClosedRange<Int>, Never>>>.self
    )
    let recorder = RecordingSubscriber<Int, Never>()
    fused.subscribe(recorder)
    #expect(recorder.values == [3, 4, 5])
  }

  @Test func tryFilterOfFilter_fusesIntoOneTryFilter() {
    let fused = Deferred { (1...10).publisher }.filter { $0 > 2 }.tryFilter { $0 < 6 }
    #expect(
      type(of: fused)
        == Publishers.TryFilter<Deferred<Publishers.Sequence<ClosedRange<Int>, Never>>>.self
    )
    let recorder = RecordingSubscriber<Int, any Error>()
    fused.subscribe(recorder)
    #expect(recorder.values == [3, 4, 5])
  }

  @Test func mapThenFilter_matchesLoop() {
    let recorder = RecordingSubscriber<Int, Never>()
    (0..<1_000).publisher.map { $0 * 3 }.filter { $0.isMultiple(of: 2) }.subscribe(recorder)
    #expect(recorder.values == (0..<1_000).map { $0 * 3 }.filter { $0.isMultiple(of: 2) })
    #expect(recorder.completion == .finished)
  }

  @Test func filter_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, -1, 2, -2, 3].publisher.filter { $0 > 0 } },
      makeLongPublisher: { (0..<2_000_000).map { $0 }.publisher.filter { $0.isMultiple(of: 2) } }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}
