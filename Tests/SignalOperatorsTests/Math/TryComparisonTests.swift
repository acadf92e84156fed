import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryComparisonTests {
  let harness = ReducingHarness(name: "TryComparison") {
    $0.tryMin { lhs, rhs in
      if lhs == 99 || rhs == 99 { throw TestError.thrown }
      return lhs < rhs
    }
  }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([3, 1, 2], ["1"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([3, 1, 2], ["1"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([3, 1, 2], ["1"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [3, 1, 2])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([3, 1, 2], ["1"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([3, 1, 2])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([3, 1, 2], ["1"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([3, 1, 2])
  }

  @Test func subscription_describedAsTryComparison() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([3, 1, 2], ["1"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([3, 1, 2], ["1"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
      Record<Int, Never>(output: [3, 1, 2], completion: .finished)
        .tryMin { $0 < $1 }
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func tryComparison_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [3, 1, 2], completion: .finished).tryMin { $0 < $1 }
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [3, 1, 2],
          completion: .failure(TestError())
        )
        .tryMin { $0 < $1 }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func closureThrows_cancelsUpstreamAndFails() {
    harness.checkThrows([1, 99, 2])
  }

  @Test func tryMax_sendsLargest() {
    let recorder = RecordingSubscriber<Int, any Error>()
    [3, 9, 2].publisher.tryMax { $0 < $1 }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "9", "finished"])
  }

  @Test func tryMaxBy_equalValues_keepsFirst() {
    let recorder = RecordingSubscriber<String, any Error>()
    ["bb", "x", "cc"].publisher.tryMax { $0.count < $1.count }.subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "bb", "finished"])
  }
}
