import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MergeCollectionTests {
  let a = TestPublisher<Int, TestError>()
  let b = TestPublisher<Int, TestError>()
  let c = TestPublisher<Int, TestError>()

  @Test func collection_interleavesTheValues_finishesWhenAllFinish() {
    let recorder = RecordingSubscriber<Int, TestError>()
    [a, b, c].merge().subscribe(recorder)
    b.send(2)
    a.send(1)
    c.send(3)
    a.send(completion: .finished)
    b.send(completion: .finished)
    #expect(recorder.completion == nil)
    c.send(completion: .finished)
    #expect(
      recorder.events == [.subscription, .value(2), .value(1), .value(3), .completion(.finished)]
    )
  }

  @Test func mergeWithCollection_mergesThisPublisherToo() {
    let recorder = RecordingSubscriber<Int, TestError>()
    a.merge(with: [b, c]).subscribe(recorder)
    c.send(3)
    a.send(1)
    b.send(2)
    #expect(recorder.values == [3, 1, 2])
  }

  @Test func emptyCollection_finishesAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>()
    [TestPublisher<Int, TestError>]().merge().subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func failure_failsAndCancelsTheOthers() {
    let recorder = RecordingSubscriber<Int, TestError>()
    [a, b].merge().subscribe(recorder)
    b.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(a.requests.last == .cancel)
  }

  @Test func limitedDemand_neverMoreThanRequested() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    [a, b].merge().subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(3)
    b.send(4)
    #expect(recorder.values == [1, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsEveryPublisherAndReleasesTheSubscription() {
    let recorder = RecordingSubscriber<Int, TestError>()
    weak var subscription: AnyObject?
    do {
      a.merge(with: [b, c]).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    recorder.cancel()
    for publisher in [a, b, c] { #expect(publisher.requests.last == .cancel) }
    #expect(subscription == nil)
  }

  @Test func mergeCollection_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [
          Publishers.Sequence<[Int], TestError>(sequence: [1, 2]),
          Publishers.Sequence<[Int], TestError>(sequence: [3]),
        ].merge()
      },
      makeFailingPublisher: {
        [
          Publishers.Sequence<[Int], TestError>(sequence: [1]).eraseToAnyPublisher(),
          Record(output: [1, 2], completion: .failure(TestError())).eraseToAnyPublisher(),
        ].merge()
      },
      makeLongPublisher: {
        [Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000)].merge()
      }
    )
    .run()
    .expectAllPassed()
  }
}
