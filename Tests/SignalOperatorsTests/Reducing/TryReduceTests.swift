import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryReduceTests {
  let harness = ReducingHarness(name: "TryReduce") {
    $0.tryReduce(0) { sum, value in
      if value == 99 { throw TestError.thrown }
      return sum + value
    }
  }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([1, 2, 3], ["6"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([1, 2, 3], ["6"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([1, 2, 3], ["6"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [1, 2, 3])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([1, 2, 3], ["6"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([1, 2, 3])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([1, 2, 3], ["6"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([1, 2, 3])
  }

  @Test func subscription_describedAsTryReduce() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([1, 2, 3], ["6"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([1, 2, 3], ["6"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
      Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        .tryReduce(0, +)
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func tryReduce_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished).tryReduce(0, +)
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [1, 2, 3],
          completion: .failure(TestError())
        )
        .tryReduce(0, +)
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func closureThrows_cancelsUpstreamAndFails() {
    harness.checkThrows([1, 99, 2])
  }

  @Test func emptyUpstream_sendsInitialResult() {
    let recorder = RecordingSubscriber<Int, any Error>()
    Empty<Int, Never>().tryReduce(7, +).subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "7", "finished"])
  }
}
