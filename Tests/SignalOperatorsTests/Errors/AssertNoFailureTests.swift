import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AssertNoFailureTests {

  let upstream = TestPublisher<Int, TestError>()

  @Test func values_passThroughAndFinish() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.assertNoFailure().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func demand_forwardedToUpstream() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    upstream.assertNoFailure().subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    upstream.send(2)
    #expect(recorder.values == [2])
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func maxOne_toppedUpFromReceive_deliversAll() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<5).publisher.assertNoFailure().subscribe(recorder)
    #expect(recorder.values == Array(0..<5))
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_reachesUpstream() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.assertNoFailure().subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.values.isEmpty)
  }

  @Test func subscription_isUpstreams() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.assertNoFailure().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "TestPublisher")
  }

  @Test func inner_describedAndMirroredAsCombines() {
    // OpenCombine's `testAssertNoFailureReflection`: the file, the line and the prefix.
    let spy = InnerSpy<Int, Never>()
    spy.assertNoFailure("PREFIX", file: "SomeFile.swift", line: 1987)
      .subscribe(RecordingSubscriber<Int, Never>())
    #expect(spy.descriptions == ["AssertNoFailure"])
    #expect(spy.mirrors == [["file: SomeFile.swift", "line: 1987", "prefix: PREFIX"]])
  }

  @Test func subscription_releasedAfterCancel() {
    let subscriber = WeakSubscriber<Int, Never>()
    upstream.assertNoFailure().subscribe(subscriber)
    subscriber.cancel()
    #expect(subscriber.subscription == nil)
  }

  @Test func failure_trapsWithPrefixAndError() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>()
      Fail<Int, TestError>(error: TestError(code: 42))
        .assertNoFailure("settings")
        .subscribe(recorder)
    }
    let output = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    #expect(output.contains("settings"))
    #expect(output.contains("Boom(42)"))
  }

  @Test func assertNoFailure_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.assertNoFailure() },
      makeLongPublisher: { Array(0..<1_000_000).publisher.assertNoFailure() }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}
