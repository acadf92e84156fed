import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ContainsWhereTests {
  let harness = ReducingHarness(name: "ContainsWhere") { $0.contains { $0 > 1 } }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([1, 2, 3], ["true"], early: true)
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([1, 2, 3], ["true"], early: true)
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([1, 2, 3], ["true"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([1, 2, 3], ["true"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([1, 2, 3])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([1, 2, 3], ["true"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([1, 2, 3])
  }

  @Test func subscription_describedAsContainsWhere() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([1, 2, 3], ["true"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([1, 2, 3], ["true"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Bool, Never>(initialDemand: nil)
      Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        .contains { $0 > 1 }
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func containsWhere_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished).contains { $0 > 1 }
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [],
          completion: .failure(TestError())
        )
        .contains { $0 > 1 }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func noMatch_sendsFalseOnFinish() {
    let recorder = RecordingSubscriber<Bool, Never>()
    [0, 1].publisher.contains { $0 > 1 }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "false", "finished"])
  }
}
