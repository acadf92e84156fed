import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SetOutputTypeTests {
  @Test func completion_passesWithTheNewOutputType() {
    let upstream = TestPublisher<Never, TestError>()
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(2))
    let typed: Publishers.Map<TestPublisher<Never, TestError>, String> =
      upstream.setOutputType(to: String.self)
    typed.subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2))])
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(recorder.subscriptionDescription == "TestPublisher")
  }

  @Test func cancel_reachesUpstream() {
    let upstream = TestPublisher<Never, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.setOutputType(to: Int.self).subscribe(recorder)
    recorder.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func canMergeWithAPublisherOfThatType() {
    let recorder = RecordingSubscriber<Int, Never>()
    Empty<Never, Never>().setOutputType(to: Int.self).merge(with: Just(7)).subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
  }
}
