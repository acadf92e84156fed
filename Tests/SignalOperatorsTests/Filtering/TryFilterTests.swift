import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryFilterTests {
  @Test func subscription_mirrorsItsDownstream() throws {
    // As Combine's `TryFilter`: the downstream, nil once the subscription ended.
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    TestPublisher<Int, Never>().tryFilter { _ in true }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream"])
    #expect(mirror.children.first?.value as? RecordingSubscriber<Int, any Error> === recorder)
    subscription.cancel()
    let ended = Mirror(reflecting: subscription).children.first.map { String(describing: $0.value) }
    #expect(ended == "nil")
  }

  @Test func valueBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: 1).tryFilter { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryFilter: the upstream sent a value before its subscription")
  }

  @Test func requestBeforeSubscription_traps_asCombineDoes() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyRequestPublisher<Int>().tryFilter { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryFilter: request(_:) before the upstream's subscription arrived")
  }

  @Test func completionBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: nil).tryFilter { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryFilter: the upstream sent a completion before its subscription")
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in
      upstream.tryFilter { value in
        if value == 0 { throw TestError.thrown }
        return value > 0
      }
    },
    inputs: [1, -1, 2, -2, 3],
    expected: ["1", "2", "3"],
    error: TestError(code: 1),
    description: "TryFilter"
  )

  @Test func values_areFiltered() { scenarios.basic() }
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

  @Test func droppedValue_returnsOneDemandUpstream() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(1))
    upstream.tryFilter { $0 > 0 }.subscribe(recorder)
    upstream.send(-1)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(5)
    #expect(recorder.values == [5])
    #expect(upstream.outstandingDemand == .none)
  }

  @Test func predicate_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, any Error>) in
      upstream.tryFilter {
        _ = token
        return $0 > 0
      }.subscribe(recorder)
    }
  }

  @Test func tryFilterThenFilterAndTryFilter_fuseIntoOneTryFilter() {
    let fused = (1...10).publisher.tryFilter { $0 > 2 }.filter { $0 < 8 }.tryFilter { $0 != 5 }
    #expect(
      type(of: fused) == Publishers.TryFilter<Publishers.Sequence<ClosedRange<Int>, Never>>.self
    )
    let recorder = RecordingSubscriber<Int, any Error>()
    fused.subscribe(recorder)
    #expect(recorder.values == [3, 4, 6, 7])
  }

  @Test func tryFilter_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, -1, 2, -2, 3].publisher.tryFilter { $0 > 0 } },
      makeFailingPublisher: { [1, 2].publisher.tryFilter { _ in throw TestError.thrown } },
      makeLongPublisher: { (0..<2_000_000).map { $0 }.publisher.tryFilter { $0.isMultiple(of: 2) } }
    )
    .run()
    .expectAllPassed()
  }
}
