import SignalOperators
import StreamCombineExt
import StreamConbini
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FailuresTests {
  @Test func failure_isPublishedThenFinish() {
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<TestError, Never>()
    upstream.materialize().failures().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(TestError(code: 4)))
    #expect(
      recorder.events == [.subscription, .value(TestError(code: 4)), .completion(.finished)]
    )
  }

  @Test func droppedValues_askUpstreamForOneMoreEach() {
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<TestError, Never>(initialDemand: .max(1))
    upstream.materialize().failures().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.violations.isEmpty)
  }

  @Test func cancel_cancelsUpstream() {
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<TestError, Never>()
    upstream.materialize().failures().subscribe(recorder)
    recorder.cancel()
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func eventsOfAnyPublisher_failuresPass() {
    let events = [MaterializedEvent<Int, TestError>.value(1), .failure(TestError(code: 2))]
      .publisher
    let recorder = RecordingSubscriber<TestError, Never>()
    events.failures().subscribe(recorder)
    #expect(recorder.values == [TestError(code: 2)])
  }
}
