import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryScanTests {
  @Test func subscription_mirrorsDownstreamStatusAndResult() throws {
    // As Combine's `TryScan`: the downstream, the status and the result so far.
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryScan(1) { $0 + $1 }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(2)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "status", "result"])
    let values = mirror.children.map { String(describing: $0.value) }
    #expect(values.dropFirst() == ["subscribed(TestPublisher)", "3"])
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in
      upstream.tryScan(0) { total, value in
        if value == 0 { throw TestError.thrown }
        return total + value
      }
    },
    inputs: [1, 2, 3],
    expected: ["1", "3", "6"],
    error: TestError(code: 1),
    description: "TryScan"
  )

  @Test func runningResults_arePublished() { scenarios.basic() }
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

  @Test func eachSubscription_startsFromInitialResult() {
    let publisher = [1, 2].publisher.tryScan(10) { $0 + $1 }
    let first = RecordingSubscriber<Int, any Error>()
    let second = RecordingSubscriber<Int, any Error>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == [11, 13])
    #expect(second.values == [11, 13])
  }

  @Test func arrayAccumulator_keepsEveryStep() {
    let recorder = RecordingSubscriber<[Int], any Error>()
    [1, 2, 3].publisher.tryScan([Int]()) { $0 + [$1] }.subscribe(recorder)
    #expect(recorder.values == [[1], [1, 2], [1, 2, 3]])
  }

  @Test func closure_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, any Error>) in
      upstream.tryScan(0) {
        _ = token
        return $0 + $1
      }.subscribe(recorder)
    }
  }

  @Test func tryScan_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.tryScan(0) { $0 + $1 } },
      makeFailingPublisher: { [1, 2].publisher.tryScan(0) { _, _ in throw TestError.thrown } },
      makeLongPublisher: { (0..<1_000_000).map { $0 }.publisher.tryScan(0) { $0 &+ $1 } }
    )
    .run()
    .expectAllPassed()
  }
}
