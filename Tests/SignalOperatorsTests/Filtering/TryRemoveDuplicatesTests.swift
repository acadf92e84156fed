import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryRemoveDuplicatesTests {
  @Test func subscription_mirrorsDownstreamAndLast() throws {
    // As Combine's `TryRemoveDuplicates`: the downstream and the last value.
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryRemoveDuplicates { $0 == $1 }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(4)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "last"])
    #expect(mirror.children.dropFirst().first.map { String(describing: $0.value) } == "Optional(4)")
  }

  @Test func valueBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: 1).tryRemoveDuplicates { $0 == $1 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryRemoveDuplicates: the upstream sent a value before its subscription")
  }

  @Test func completionBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: nil).tryRemoveDuplicates { $0 == $1 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryRemoveDuplicates: the upstream sent a completion before its subscription")
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in
      upstream.tryRemoveDuplicates { previous, next in
        if next == 0 { throw TestError.thrown }
        return previous == next
      }
    },
    inputs: [1, 1, 2, 2, 2, 1],
    expected: ["1", "2", "1"],
    error: TestError(code: 1),
    description: "TryRemoveDuplicates"
  )

  @Test func consecutiveDuplicates_areRemoved() { scenarios.basic() }
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

  @Test func firstValue_isNotCompared() {
    let recorder = RecordingSubscriber<Int, any Error>()
    [5].publisher.tryRemoveDuplicates { _, _ in throw TestError.thrown }.subscribe(recorder)
    #expect(shortLog(recorder) == ["sub", "5", "fin"])
  }

  @Test func predicate_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, any Error>) in
      upstream.tryRemoveDuplicates {
        _ = token
        return $0 == $1
      }.subscribe(recorder)
    }
  }

  @Test func tryRemoveDuplicates_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 1, 2, 3, 3].publisher.tryRemoveDuplicates { $0 == $1 } },
      makeFailingPublisher: {
        [1, 2].publisher.tryRemoveDuplicates { _, _ in throw TestError.thrown }
      },
      makeLongPublisher: { (0..<1_000_000).map { $0 }.publisher.tryRemoveDuplicates { $0 == $1 } }
    )
    .run()
    .expectAllPassed()
  }
}
