import SignalOperators
import StreamCombineExt
import StreamConbini
import StreamCore
import StreamPropagate
import StreamSnail
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ValuesTests {
  @Test func materialized_valuesPassAndTheFailureIsDropped() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.materialize().values() },
      inputs: [1, 2, 3],
      expected: ["1", "2", "3"],
      error: nil,
      description: "Materialize"
    ).runAll()
  }

  @Test func upstreamFails_finishesWithoutTheFailure() {
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.materialize().values().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func erasedPublisherOfEvents_valuesPass() {
    let events = [
      MaterializedEvent<Int, TestError>.value(1), .failure(TestError()), .value(2), .finished,
    ]
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    events.publisher.eraseToAnyPublisher().values().subscribe(recorder)
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)]
    )
    #expect(recorder.violations.isEmpty)
  }

  @Test func materializedPublisher_keepsTheAsyncValuesProperty() {
    // `values` without parentheses is still the async sequence.
    let sequence = [1].publisher.materialize().values
    #expect(
      type(of: sequence)
        == AsyncPublisher<Publishers.Materialize<Publishers.Sequence<[Int], Never>>>.self
    )
  }
}
