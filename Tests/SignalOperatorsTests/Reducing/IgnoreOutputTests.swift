import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct IgnoreOutputTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func values_areIgnored_completionPasses() {
    let recorder = RecordingSubscriber<Never, TestError>()
    upstream.ignoreOutput().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(shortLog(recorder) == ["sub", "fin"])
    #expect(upstream.violations.isEmpty)
  }

  @Test func demandNone_stillRequestsUnlimitedUpstream() {
    let recorder = RecordingSubscriber<Never, TestError>(initialDemand: nil)
    upstream.ignoreOutput().subscribe(recorder)
    #expect(upstream.requests == [.demand(.unlimited)])
    upstream.send(1)
    #expect(upstream.violations.isEmpty)
  }

  @Test func downstreamRequest_passesToUpstream() {
    let recorder = RecordingSubscriber<Never, TestError>(initialDemand: .max(1))
    upstream.ignoreOutput().subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.unlimited)])
  }

  @Test func upstreamFails_beforeAndAfterValues() {
    for sendValues in [false, true] {
      let upstream = TestPublisher<Int, TestError>()
      let recorder = RecordingSubscriber<Never, TestError>()
      upstream.ignoreOutput().subscribe(recorder)
      if sendValues { upstream.send(1) }
      upstream.send(completion: .failure(TestError(code: 4)))
      #expect(shortLog(recorder) == ["sub", "fail(\(TestError(code: 4)))"])
    }
  }

  @Test func cancel_cancelsUpstream() {
    let recorder = RecordingSubscriber<Never, TestError>(initialDemand: nil)
    upstream.ignoreOutput().subscribe(recorder)
    recorder.cancel()
    upstream.send(completion: .finished)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(shortLog(recorder) == ["sub"])
  }

  @Test func cancelInsideReceiveSubscription_stillSafe() {
    let canceller = AnySubscriber<Never, TestError>(
      receiveSubscription: { $0.cancel() }
    )
    upstream.ignoreOutput().subscribe(canceller)
    upstream.send(1)
    #expect(upstream.requests.first == .cancel)
  }

  @Test func subscription_releasedAfterEnd() {
    weak var subscription: AnyObject?
    let recorder = RecordingSubscriber<Never, TestError>()
    upstream.ignoreOutput().subscribe(recorder)
    subscription = recorder.subscription as AnyObject?
    #expect(subscription != nil)
    upstream.send(completion: .finished)
    #expect(subscription == nil)
  }

  @Test func inner_describesItselfAsIgnoreOutput() {
    let spy = InnerSpy<Int, Never>()
    spy.ignoreOutput().subscribe(RecordingSubscriber<Never, Never>())
    #expect(spy.descriptions == ["IgnoreOutput"])
    #expect(spy.mirrors == [[]])  // as Combine: no children
  }

  @Test func equatable_comparesUpstreams() {
    // Built directly: `Publishers.Sequence.ignoreOutput()` returns `Empty`.
    #expect(
      Publishers.IgnoreOutput(upstream: [1].publisher)
        == Publishers.IgnoreOutput(upstream: [1].publisher)
    )
    #expect(
      Publishers.IgnoreOutput(upstream: [1].publisher)
        != Publishers.IgnoreOutput(upstream: [2].publisher)
    )
  }

  @Test func ignoreOutput_conforms() {
    PublisherConformance(
      elements: 0,
      makePublisher: {
        [1, 2, 3].publisher.setFailureType(to: TestError.self).ignoreOutput()
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).ignoreOutput().eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.01", "SC-3.02"])
  }
}
