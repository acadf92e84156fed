import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ShareReplayTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func lateSubscriber_getsTheLastValuesThenLiveOnes_oneUpstreamSubscription() {
    let shared = upstream.share(replay: 2)
    let first = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    let second = RecordingSubscriber<Int, TestError>()
    shared.subscribe(second)
    upstream.send(4)
    #expect(first.values == [1, 2, 3, 4])
    #expect(second.events == [.subscription, .value(2), .value(3), .value(4)])
    #expect(upstream.subscriptionCount == 1)
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(second.subscriptionDescription == "Multicast")
  }

  @Test func afterTheUpstreamEnded_replaysValuesThenTheCompletion() {
    let shared = upstream.share(replay: 2)
    let first = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    upstream.send(completion: .failure(TestError()))
    let late = RecordingSubscriber<Int, TestError>()
    shared.subscribe(late)
    #expect(
      late.events == [.subscription, .value(2), .value(3), .completion(.failure(TestError()))]
    )
    #expect(upstream.subscriptionCount == 1)
  }

  @Test func synchronousUpstream_firstSubscriberWithoutDemandGetsTheValuesOnRequest() {
    let shared = [1, 2, 3].publisher.share(replay: 2)
    let first = RecordingSubscriber<Int, Never>(initialDemand: nil)
    shared.subscribe(first)
    #expect(first.events == [.subscription])
    first.request(.max(1))
    #expect(first.values == [2])
    first.request(.max(1))
    #expect(first.events == [.subscription, .value(2), .value(3), .completion(.finished)])
    let second = RecordingSubscriber<Int, Never>()
    shared.subscribe(second)
    #expect(second.events == [.subscription, .value(2), .value(3), .completion(.finished)])
  }

  @Test func limitedDemand_isNeverExceeded() {
    let shared = upstream.share(replay: 3)
    let limited = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    shared.subscribe(limited)
    for value in 1...5 { upstream.send(value) }
    #expect(limited.values == [1, 2])
    limited.request(.max(10))
    // Without demand it kept the latest three.
    #expect(limited.values == [1, 2, 3, 4, 5])
    #expect(limited.violations.isEmpty)
  }

  @Test func replayZero_isLikeShare() {
    let shared = upstream.share(replay: 0)
    let first = RecordingSubscriber<Int, TestError>()
    shared.subscribe(first)
    upstream.send(1)
    let second = RecordingSubscriber<Int, TestError>()
    shared.subscribe(second)
    upstream.send(2)
    #expect(second.values == [2])
    upstream.send(completion: .finished)
    let third = RecordingSubscriber<Int, TestError>()
    shared.subscribe(third)
    #expect(third.events == [.subscription, .completion(.finished)])
  }

  @Test func allSubscribersCancel_upstreamIsCancelled_andSubscribersReleased() {
    let shared = upstream.share(replay: 1)
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      shared.subscribe(recorder)
      upstream.send(1)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func completion_releasesSubscribers() {
    let shared = upstream.share(replay: 1)
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      shared.subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      upstream.send(completion: .finished)
    }
    #expect(weakRecorder == nil)
    #expect(weakSubscription == nil)
  }

  @Test func shareReplay_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [1, 2, 3].publisher.setFailureType(to: TestError.self).share(replay: 3)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).share(replay: 3).eraseToAnyPublisher()
      },
      makeLongPublisher: {
        (0..<100_000).publisher.setFailureType(to: TestError.self).share(replay: 100_000)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
