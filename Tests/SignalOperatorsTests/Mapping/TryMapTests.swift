import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryMapTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, any Error>()
    TestPublisher<Int, Never>().tryMap { $0 }.subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in
      upstream.tryMap { value -> Int in
        if value == 0 { throw TestError.thrown }
        return value * 10
      }
    },
    inputs: [1, 2, 3],
    expected: ["10", "20", "30"],
    error: TestError(code: 1),
    description: "TryMap"
  )

  @Test func values_areTransformed() { scenarios.basic() }
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
      upstream.tryMap {
        _ = token
        return $0
      }.subscribe(recorder)
    }
  }

  @Test func thrownError_releasesTransform() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, any Error>()
    weak var weakToken: ReleaseToken?
    do {
      let token = ReleaseToken()
      weakToken = token
      upstream.tryMap { (_: Int) -> Int in
        _ = token
        throw TestError.thrown
      }
      .subscribe(recorder)
    }
    upstream.send(1)
    #expect(weakToken == nil)
  }

  @Test func requestNone_isPassedUpstream_asCombineDoes() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    upstream.tryMap { $0 }.subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(upstream.requests == [.demand(.none)])
  }

  @Test func tryMapThenMap_fusesIntoOneTryMap() {
    let fused = [1, 2].publisher.tryMap { $0 + 1 }.map { $0 * 2 }
    #expect(type(of: fused) == Publishers.TryMap<Publishers.Sequence<[Int], Never>, Int>.self)
    let recorder = RecordingSubscriber<Int, any Error>()
    fused.subscribe(recorder)
    #expect(recorder.values == [4, 6])
  }

  @Test func tryMapThenTryMap_fusesAndStopsAtFirstThrow() {
    let fused = [1, 2, 3].publisher
      .tryMap { $0 + 1 }
      .tryMap { value -> Int in
        if value == 3 { throw TestError.thrown }
        return value
      }
    #expect(type(of: fused) == Publishers.TryMap<Publishers.Sequence<[Int], Never>, Int>.self)
    let recorder = RecordingSubscriber<Int, any Error>()
    fused.subscribe(recorder)
    #expect(shortLog(recorder) == ["sub", "2", "fail(\(TestError.thrown))"])
  }

  @Test func concurrentCancelAndSend_deliverNothingAfterCancel() {
    for _ in 0..<200 {
      let upstream = TestPublisher<Int, Never>()
      let recorder = RecordingSubscriber<Int, any Error>()
      upstream.tryMap { $0 }.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          for value in 0..<50 { upstream.send(value) }
        } else {
          recorder.cancel()
        }
      }
      let values = recorder.values
      #expect(values == Array(0..<values.count))  // a prefix: nothing lost or duplicated
    }
  }

  @Test func tryMap_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.tryMap { $0 * 2 } },
      makeFailingPublisher: { [1, 2, 3].publisher.tryMap { _ -> Int in throw TestError.thrown } },
      makeLongPublisher: { (0..<1_000_000).map { $0 }.publisher.tryMap { $0 * 2 } }
    )
    .run()
    .expectAllPassed()
  }
}
