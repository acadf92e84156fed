import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ComparisonTests {
  let harness = ReducingHarness(name: "Comparison") { $0.max() }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([3, 9, 1], ["9"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([3, 9, 1], ["9"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([3, 9, 1], ["9"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [3, 9, 1])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([3, 9, 1], ["9"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([3, 9, 1])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([3, 9, 1], ["9"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([3, 9, 1])
  }

  @Test func subscription_describedAsComparison() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([3, 9, 1], ["9"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([3, 9, 1], ["9"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      Record<Int, Never>(output: [3, 9, 1], completion: .finished)
        .max()
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func comparison_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [3, 9, 1], completion: .finished).max()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [3, 9, 1],
          completion: .failure(TestError())
        )
        .max()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func min_sendsSmallest() {
    let recorder = RecordingSubscriber<Int, Never>()
    [3, 1, 2].publisher.min().subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "1", "finished"])
  }

  @Test func minBy_equalValues_keepsFirst() {
    let recorder = RecordingSubscriber<String, Never>()
    ["bb", "x", "y", "ccc"].publisher.min { $0.count < $1.count }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "x", "finished"])
  }

  @Test func maxBy_equalValues_keepsFirst() {
    let recorder = RecordingSubscriber<String, Never>()
    ["bb", "x", "cc"].publisher.max { $0.count < $1.count }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "bb", "finished"])
  }

  @Test func emptyUpstream_sendsNothing() {
    let recorder = RecordingSubscriber<Int, Never>()
    Empty<Int, Never>().min().subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "finished"])
  }
}
