import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ZipManyTests {
  let a = TestPublisher<Int, TestError>()
  let b = TestPublisher<Int, TestError>()
  let c = TestPublisher<Int, TestError>()

  @Test func collection_publishesTheNthValuesAsArrays() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    [a, b, c].zip().subscribe(recorder)
    a.send(1)
    a.send(2)
    b.send(10)
    c.send(100)
    b.send(20)
    c.send(200)
    #expect(recorder.values == [[1, 10, 100], [2, 20, 200]])
  }

  @Test func zipWith_variadicAndCollection_putThisPublisherFirst() {
    let variadic = RecordingSubscriber<[Int], TestError>()
    let collection = RecordingSubscriber<[Int], TestError>()
    a.zip(with: b, c).subscribe(variadic)
    a.zip(with: [b, c]).subscribe(collection)
    c.send(3)
    b.send(2)
    a.send(1)
    #expect(variadic.values == [[1, 2, 3]])
    #expect(collection.values == [[1, 2, 3]])
  }

  @Test func emptyCollection_finishesAtOnce_oneElement_givesOneElementArrays() {
    let none = RecordingSubscriber<[Int], TestError>()
    [TestPublisher<Int, TestError>]().zip().subscribe(none)
    #expect(none.events == [.subscription, .completion(.finished)])
    let one = RecordingSubscriber<[Int], TestError>()
    [a].zip().subscribe(one)
    a.send(1)
    a.send(completion: .finished)
    #expect(one.events == [.subscription, .value([1]), .completion(.finished)])
  }

  @Test func finishesOnceAFinishedPublishersValuesAreUsed_failsAtTheFirstFailure() {
    let finished = RecordingSubscriber<[Int], TestError>()
    [a, b].zip().subscribe(finished)
    a.send(1)
    a.send(completion: .finished)
    b.send(2)
    #expect(finished.events == [.subscription, .value([1, 2]), .completion(.finished)])

    let x = TestPublisher<Int, TestError>()
    let y = TestPublisher<Int, TestError>()
    let failed = RecordingSubscriber<[Int], TestError>()
    [x, y].zip().subscribe(failed)
    x.send(1)
    y.send(completion: .failure(TestError()))
    #expect(failed.events == [.subscription, .completion(.failure(TestError()))])
    #expect(x.requests.last == .cancel)
  }

  @Test func limitedDemand_neverMoreThanRequested() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1))
    [a, b].zip().subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(3)
    b.send(4)
    #expect(recorder.values == [[1, 2]])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsEveryPublisherAndReleasesTheSubscription() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    weak var subscription: AnyObject?
    do {
      [a, b, c].zip().subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    recorder.cancel()
    for publisher in [a, b, c] { #expect(publisher.requests.last == .cancel) }
    #expect(subscription == nil)
  }

  @Test func zipMany_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [
          Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]),
          Publishers.Sequence<[Int], TestError>(sequence: [4, 5, 6]),
          Publishers.Sequence<[Int], TestError>(sequence: [7, 8, 9, 10]),
        ].zip()
      },
      makeFailingPublisher: {
        [
          Record(output: [1, 2], completion: .failure(TestError())).eraseToAnyPublisher(),
          Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]).eraseToAnyPublisher(),
        ].zip()
      },
      makeLongPublisher: {
        [
          Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000),
          Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000),
        ].zip()
      }
    )
    .run()
    .expectAllPassed()
  }
}
