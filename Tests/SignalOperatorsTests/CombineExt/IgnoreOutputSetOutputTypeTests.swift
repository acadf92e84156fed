import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct IgnoreOutputSetOutputTypeTests {
  @Test func values_areDroppedAndCompletionPasses() {
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(1))
    let typed: Publishers.Map<Publishers.IgnoreOutput<TestPublisher<Int, TestError>>, String> =
      upstream.ignoreOutput(setOutputType: String.self)
    typed.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(upstream.requests.last == .demand(.unlimited))
  }

  @Test func appendAfterIt_publishesTheAppendedValue() {
    let recorder = RecordingSubscriber<String, Never>()
    [1, 2].publisher.ignoreOutput(setOutputType: String.self).append("done").subscribe(recorder)
    #expect(recorder.events == [.subscription, .value("done"), .completion(.finished)])
  }

  @Test func cancel_reachesUpstream() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<String, Never>()
    upstream.ignoreOutput(setOutputType: String.self).subscribe(recorder)
    recorder.cancel()
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests.last == .cancel)
  }
}
