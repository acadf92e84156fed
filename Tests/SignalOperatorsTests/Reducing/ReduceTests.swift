import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ReduceTests {
  @Test func subscription_mirrorsDownstreamResultInitialAndStatus() throws {
    // As Combine's: the downstream, the result so far, the initial result and the status.
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.reduce(10) { $0 + $1 }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(5)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "result", "initial", "status"])
    #expect(mirror.children.first?.value as? RecordingSubscriber<Int, TestError> === recorder)
    let values = mirror.children.map { String(describing: $0.value) }
    #expect(values.dropFirst() == ["Optional(15)", "Optional(10)", "subscribed(TestPublisher)"])
    upstream.send(completion: .finished)
    let resolved = Mirror(reflecting: subscription).children.map { String(describing: $0.value) }
    #expect(resolved.dropFirst() == ["Optional(15)", "Optional(10)", "terminal"])
  }

  let harness = ReducingHarness(name: "Reduce") { $0.reduce("") { $0 + String($1) } }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([1, 2, 3], ["123"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([1, 2, 3], ["123"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([1, 2, 3], ["123"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [1, 2, 3])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([1, 2, 3], ["123"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([1, 2, 3])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([1, 2, 3], ["123"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([1, 2, 3])
  }

  @Test func subscription_describedAsReduce() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([1, 2, 3], ["123"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([1, 2, 3], ["123"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<String, Never>(initialDemand: nil)
      Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        .reduce("") { $0 + String($1) }
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func reduce_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished).reduce("") {
          $0 + String($1)
        }
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [1, 2, 3],
          completion: .failure(TestError())
        )
        .reduce("") { $0 + String($1) }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func emptyUpstream_sendsInitialResult() {
    let recorder = RecordingSubscriber<Int, Never>()
    Empty<Int, Never>().reduce(7, +).subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "7", "finished"])
  }

  @Test func sum_foldsEveryValue() {
    let recorder = RecordingSubscriber<Int, Never>()
    (1...100).publisher.reduce(0, +).subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "5050", "finished"])
  }
}
