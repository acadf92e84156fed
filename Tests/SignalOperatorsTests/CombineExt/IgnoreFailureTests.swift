import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct IgnoreFailureTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func values_passThrough() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.ignoreFailure() },
      inputs: [1, 2],
      expected: ["1", "2"],
      error: nil,
      description: "Catch"
    ).runAll()
  }

  @Test func failure_finishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.ignoreFailure().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func failureNotCompletingImmediately_leavesItOpen() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.ignoreFailure(completeImmediately: false).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1)])
    recorder.cancel()
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func setFailureType_failureFinishesWithTheNewType() {
    let recorder = RecordingSubscriber<Int, URLErrorStandIn>()
    upstream.ignoreFailure(setFailureType: URLErrorStandIn.self).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func setFailureTypeNotCompletingImmediately_leavesItOpen() {
    let recorder = RecordingSubscriber<Int, URLErrorStandIn>()
    upstream.ignoreFailure(setFailureType: URLErrorStandIn.self, completeImmediately: false)
      .subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription])
  }

  @Test func demand_isPassedUpstream() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.ignoreFailure().subscribe(recorder)
    upstream.send(1)
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.requests == [.demand(.max(1))])
  }

  struct URLErrorStandIn: Error, Equatable {}
}
