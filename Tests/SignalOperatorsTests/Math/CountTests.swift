import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CountTests {
  let harness = ReducingHarness(name: "Count") { $0.count() }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([5, 6, 7], ["3"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([5, 6, 7], ["3"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([5, 6, 7], ["3"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [5, 6, 7])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([5, 6, 7], ["3"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([5, 6, 7])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([5, 6, 7], ["3"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([5, 6, 7])
  }

  @Test func subscription_describedAsCount() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([5, 6, 7], ["3"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([5, 6, 7], ["3"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      Record<Int, Never>(output: [5, 6, 7], completion: .finished)
        .count()
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func count_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [5, 6, 7], completion: .finished).count()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [5, 6, 7],
          completion: .failure(TestError())
        )
        .count()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func emptyUpstream_sendsZero() {
    let recorder = RecordingSubscriber<Int, Never>()
    Empty<Int, Never>().count().subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "0", "finished"])
  }
}
