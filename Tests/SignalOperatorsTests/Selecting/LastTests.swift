import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct LastTests {
  let harness = ReducingHarness(name: "Last") { $0.last() }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([4, 5, 6], ["6"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([4, 5, 6], ["6"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([4, 5, 6], ["6"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [4, 5, 6])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([4, 5, 6], ["6"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([4, 5, 6])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([4, 5, 6], ["6"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([4, 5, 6])
  }

  @Test func subscription_describedAsLast() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([4, 5, 6], ["6"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([4, 5, 6], ["6"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      Record<Int, Never>(output: [4, 5, 6], completion: .finished)
        .last()
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func last_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [4, 5, 6], completion: .finished).last()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [4, 5, 6],
          completion: .failure(TestError())
        )
        .last()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func emptyUpstream_onlyFinishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    Empty<Int, Never>().last().subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "finished"])
  }
}
