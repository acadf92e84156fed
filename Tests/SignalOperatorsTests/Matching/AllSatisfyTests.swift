import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AllSatisfyTests {
  let harness = ReducingHarness(name: "AllSatisfy") { $0.allSatisfy { $0 < 3 } }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([1, 2, 3], ["false"], early: true)
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([1, 2, 3], ["false"], early: true)
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([1, 2, 3], ["false"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([1, 2, 3], ["false"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([1, 2, 3])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([1, 2, 3], ["false"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([1, 2, 3])
  }

  @Test func subscription_describedAsAllSatisfy() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([1, 2, 3], ["false"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([1, 2, 3], ["false"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Bool, Never>(initialDemand: nil)
      Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        .allSatisfy { $0 < 3 }
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func allSatisfy_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished).allSatisfy {
          $0 < 3
        }
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [],
          completion: .failure(TestError())
        )
        .allSatisfy { $0 < 3 }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func allMatch_sendsTrueOnFinish() {
    let recorder = RecordingSubscriber<Bool, Never>()
    [1, 2].publisher.allSatisfy { $0 < 3 }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "true", "finished"])
  }

  @Test func emptyUpstream_sendsTrue() {
    let recorder = RecordingSubscriber<Bool, Never>()
    Empty<Int, Never>().allSatisfy { _ in false }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "true", "finished"])
  }
}
