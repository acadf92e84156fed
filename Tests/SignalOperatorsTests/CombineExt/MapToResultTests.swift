import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MapToResultTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func values_areSuccesses() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.mapToResult() },
      inputs: [1, 2],
      expected: ["success(1)", "success(2)"],
      error: nil,
      description: "Catch"
    ).runAll()
  }

  @Test func failure_isALastValueThenTheFinish() {
    let recorder = RecordingSubscriber<Result<Int, TestError>, Never>()
    upstream.mapToResult().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(
      recorder.events == [
        .subscription, .value(.success(1)), .value(.failure(TestError())), .completion(.finished),
      ]
    )
  }

  @Test func failureWithoutDemand_waitsForARequest() {
    let recorder = RecordingSubscriber<Result<Int, TestError>, Never>(initialDemand: .max(1))
    upstream.mapToResult().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(.success(1))])
    recorder.request(.max(1))
    #expect(recorder.values.count == 2)
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }
}
