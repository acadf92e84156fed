import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ScanTests {
  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in upstream.scan(0, +) },
    inputs: [1, 2, 3],
    expected: ["1", "3", "6"],
    error: TestError(code: 1),
    description: "TestPublisher"
  )

  @Test func runningResults_arePublished() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFails_failurePassesThrough() { scenarios.upstreamFails() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func eachSubscription_startsFromInitialResult() {
    let publisher = [1, 2].publisher.scan(10, +)
    let first = RecordingSubscriber<Int, Never>()
    let second = RecordingSubscriber<Int, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == [11, 13])
    #expect(second.values == [11, 13])
  }

  @Test func closure_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (upstream: TestPublisher<Int, Never>, token, recorder: RecordingSubscriber<Int, Never>) in
      upstream.scan(0) {
        _ = token
        return $0 + $1
      }.subscribe(recorder)
    }
  }

  @Test func inner_describesItselfAsScan() {
    let spy = InnerSpy<Int, Never>()
    spy.scan(0, +).subscribe(RecordingSubscriber<Int, Never>())
    #expect(spy.descriptions == ["Scan"])
    // As Combine: the downstream and the running result.
    #expect(
      spy.mirrors.first??.map { $0.prefix(while: { $0 != ":" }) } == ["downstream", "result"]
    )
    #expect(spy.mirrors.first??.last == "result: 0")
  }

  @Test func scan_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.scan(0, +) },
      makeLongPublisher: { (0..<1_000_000).map { $0 }.publisher.scan(0, &+) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}
