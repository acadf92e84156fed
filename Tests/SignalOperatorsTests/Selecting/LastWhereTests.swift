import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct LastWhereTests {
  let harness = ReducingHarness(name: "LastWhere") { $0.last { $0 < 6 } }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([4, 5, 6], ["5"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([4, 5, 6], ["5"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([4, 5, 6], ["5"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [4, 5, 6])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([4, 5, 6], ["5"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([4, 5, 6])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([4, 5, 6], ["5"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([4, 5, 6])
  }

  @Test func subscription_describedAsLastWhere() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([4, 5, 6], ["5"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([4, 5, 6], ["5"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      Record<Int, Never>(output: [4, 5, 6], completion: .finished)
        .last { $0 < 6 }
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func lastWhere_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [4, 5, 6], completion: .finished).last { $0 < 6 }
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [4, 5, 6],
          completion: .failure(TestError())
        )
        .last { $0 < 6 }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func noMatch_onlyFinishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    [7, 8].publisher.last { $0 < 6 }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "finished"])
  }
}
