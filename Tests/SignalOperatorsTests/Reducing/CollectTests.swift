import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CollectTests {
  @Test func subscription_mirrorsTheCountCollected() throws {
    // As Combine's `Collect`: only the number of values collected so far.
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    upstream.collect().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(1)
    upstream.send(2)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["count"])
    #expect(mirror.children.first?.value as? Int == 2)
  }

  let harness = ReducingHarness(name: "Collect") { $0.collect() }

  @Test func basicPath_sendsResultThenFinished() {
    harness.checkBasic([1, 2, 3], ["[1, 2, 3]"])
  }

  @Test func demandNone_nothingUntilRequested() {
    harness.checkWaitsForDemand([1, 2, 3], ["[1, 2, 3]"])
  }

  @Test func demandOfOne_toppedUpFromReceive_isEnough() {
    harness.checkDemandOfOne([1, 2, 3], ["[1, 2, 3]"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_failurePassesThrough() {
    harness.checkFailure(after: [])
    harness.checkFailure(after: [1, 2, 3])
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    harness.checkCancel([1, 2, 3], ["[1, 2, 3]"])
  }

  @Test func cancelFromReceive_noFinishedAfterResult() {
    harness.checkCancelFromReceive([1, 2, 3])
  }

  @Test func requestFromReceive_changesNothing() {
    harness.checkRequestFromReceive([1, 2, 3], ["[1, 2, 3]"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    harness.checkReleased([1, 2, 3])
  }

  @Test func subscription_describedAsCollect() {
    harness.checkDescription()
  }

  @Test func concurrentFinishAndRequest_resultSentOnce() {
    harness.checkConcurrentFinishAndRequest([1, 2, 3], ["[1, 2, 3]"])
  }

  @Test func concurrentSendAndCancel_nothingAfterCancel() {
    harness.checkConcurrentSendAndCancel([1, 2, 3], ["[1, 2, 3]"])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<[Int], Never>(initialDemand: nil)
      Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        .collect()
        .subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func collect_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished).collect()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [1, 2, 3],
          completion: .failure(TestError())
        )
        .collect()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func emptyUpstream_sendsEmptyArray() {
    let recorder = RecordingSubscriber<[Int], Never>()
    Empty<Int, Never>().collect().subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription", "[]", "finished"])
  }

  @Test func manyValues_keptInOrder() {
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: .max(1))
    Array(0..<1_000).publisher.collect().subscribe(recorder)
    #expect(recorder.values == [Array(0..<1_000)])
    #expect(recorder.completion == .finished)
  }
}
