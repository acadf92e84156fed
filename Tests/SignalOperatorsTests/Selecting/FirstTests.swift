import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FirstTests {
  let harness = ReducingHarness(name: "First") { $0.first() }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([4, 5, 6], ["4"], early: true)
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([4, 5, 6], ["4"], early: true)
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([4, 5, 6], ["4"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([4, 5, 6], ["4"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([4, 5, 6])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([4, 5, 6], ["4"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([4, 5, 6])
  }

  @Test func subscription_describedAsFirst() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([4, 5, 6], ["4"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([4, 5, 6], ["4"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      Record<Int, Never>(output: [4, 5, 6], completion: .finished)
        .first()
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func first_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [4, 5, 6], completion: .finished).first()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [],
          completion: .failure(TestError())
        )
        .first()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func emptyUpstream_onlyFinishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    Empty<Int, Never>().first().subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "finished"])
  }
}
