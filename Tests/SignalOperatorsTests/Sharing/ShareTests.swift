import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ShareTests {

  let upstream = TestPublisher<Int, TestError>()

  @Test func subscribers_shareOneUpstreamSubscription() {
    let shared = upstream.share()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    shared.subscribe(second)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    let expected: [RecordingSubscriber<Int, TestError>.Event] = [
      .subscription, .value(1), .value(2), .completion(.finished),
    ]
    #expect(first.events == expected)
    #expect(second.events == expected)
    #expect(upstream.subscriptionCount == 1)
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  // Differential oracle (issue 15), K196: after the upstream failed and the subscriber
  // cancelled, a new subscriber subscribes upstream again.
  @Test func cancelAfterFailure_nextSubscriberSubscribesAgain() {
    let shared = upstream.share()
    let first = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    let subscription = first.subscription
    upstream.send(completion: .failure(TestError()))
    subscription?.cancel()
    let second = RecordingSubscriber<Int, TestError>()
    shared.subscribe(second)
    #expect(second.events == [.subscription, .completion(.failure(TestError()))])
    #expect(upstream.subscriptionCount == 2)
  }

  @Test func lateSubscriber_getsOnlyLaterValues() {
    let shared = upstream.share()
    let first = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    upstream.send(1)
    let late = RecordingSubscriber<Int, TestError>()
    shared.subscribe(late)
    upstream.send(2)
    #expect(first.values == [1, 2])
    #expect(late.values == [2])
  }

  @Test func failure_reachesEverySubscriber() {
    let shared = upstream.share()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    shared.subscribe(second)
    upstream.send(completion: .failure(TestError()))
    #expect(first.completion == .failure(TestError()))
    #expect(second.completion == .failure(TestError()))
  }

  @Test func afterCompletion_newSubscriberGetsCompletionWithoutResubscribing() {
    let shared = upstream.share()
    shared.subscribe(RecordingSubscriber<Int, TestError>())
    upstream.send(completion: .finished)
    let late = RecordingSubscriber<Int, TestError>()
    shared.subscribe(late)
    #expect(late.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func allCancel_cancelsUpstream() {
    let shared = upstream.share()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    shared.subscribe(second)
    first.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
    second.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func demandMaxOne_deliversOneValue() {
    let shared = upstream.share()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    shared.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    upstream.send(3)
    #expect(recorder.values == [1, 3])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let shared = upstream.share()
    let holder = LockedState<(any Subscription)?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.withLock { $0 }?.cancel()
      return .none
    }
    shared.subscribe(recorder)
    holder.withLock { $0 = recorder.subscription }
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func equatable_byIdentity() {
    let shared = upstream.share()
    let same = shared
    #expect(shared == same)
    #expect(shared != upstream.share())
  }

  @Test func subscription_describedAsMulticast() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.share().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Multicast")
  }

  @Test func innerAndShare_releasedAfterCancel() {
    weak var inner: AnyObject?
    weak var share: Publishers.Share<TestPublisher<Int, TestError>>?
    do {
      let shared = upstream.share()
      share = shared
      let recorder = RecordingSubscriber<Int, TestError>()
      shared.subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      recorder.cancel()
    }
    #expect(inner == nil)
    #expect(share == nil)
  }

  @Test func concurrentSubscribersAndSends_nothingLostOrDuplicated() {
    let source = TestPublisher<Int, Never>()
    let shared = source.share()
    let recorders = (0..<4).map { _ in RecordingSubscriber<Int, Never>() }
    // The first subscriber connects alone: first subscribers racing may each connect, as in
    // Combine (`AutoconnectTests.concurrentSubscribeAndCancel_endsDisconnected`).
    shared.subscribe(recorders[0])
    DispatchQueue.concurrentPerform(iterations: 3) { index in
      shared.subscribe(recorders[index + 1])
    }
    #expect(source.subscriptionCount == 1)
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      for value in 0..<500 { source.send(side * 1_000 + value) }
    }
    for recorder in recorders {
      #expect(recorder.values.count == 1_000)
      #expect(Set(recorder.values).count == 1_000)
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func share_conforms() {
    PublisherConformance(
      elements: 0,
      independentSubscriptions: false,
      makePublisher: { Empty<Int, TestError>().share().eraseToAnyPublisher() },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).share().eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.01", "SC-3.02", "SC-5.01"])
  }
}
