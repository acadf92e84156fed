import Dispatch
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

  // Item 2 of issue 39 (CombineExt's `testZipAtScale`): one subscription for the whole
  // collection, no chain of nested zips to overflow the stack.
  @Test func atScale_aHundredThousandAndOneJusts_zipIntoOneArray() {
    let count = 100_001
    let recorder = RecordingSubscriber<[Int], Never>()
    Array(repeating: Just(2), count: count).zip().subscribe(recorder)
    #expect(recorder.values.count == 1)
    #expect(recorder.values.first == Array(repeating: 2, count: count))
    #expect(recorder.completion == .finished)
    let erased = RecordingSubscriber<[Int], Never>()
    Just(1).zip(with: (1..<count).map { Just($0 + 1) }).subscribe(erased)
    #expect(erased.values == [Array(1...count)])
    #expect(erased.completion == .finished)
  }

  @Test func requests_andTheDemandReturnedForAnArray_goToEveryPublisher() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil) { _ in .max(1) }
    [a, b, c].zip().subscribe(recorder)
    #expect(a.requests.isEmpty)
    recorder.request(.max(2))
    for publisher in [a, b, c] { #expect(publisher.requests == [.demand(.max(2))]) }
    a.send(1)
    b.send(2)
    c.send(3)
    #expect(recorder.values == [[1, 2, 3]])
    for publisher in [a, b, c] {
      #expect(publisher.requests == [.demand(.max(2)), .demand(.max(1))])
    }
    #expect(recorder.violations.isEmpty)
  }

  // CombineExt's `testZippingEndingWithAFinishedCompletion` and
  // `testZippingWithAnInnerCompletionButNotAnOuter`.
  @Test func aFinishedPublisher_endsItOnlyOnceItsQueueIsEmpty() {
    let drained = RecordingSubscriber<[Int], TestError>()
    a.zip(with: b, c).subscribe(drained)
    a.send(1)
    b.send(2)
    b.send(2)
    c.send(3)
    a.send(completion: .finished)
    #expect(drained.events == [.subscription, .value([1, 2, 3]), .completion(.finished)])
    #expect(b.requests.last == .cancel)

    let x = TestPublisher<Int, TestError>()
    let y = TestPublisher<Int, TestError>()
    let z = TestPublisher<Int, TestError>()
    let waiting = RecordingSubscriber<[Int], TestError>()
    x.zip(with: y, z).subscribe(waiting)
    x.send(1)
    x.send(1)
    y.send(2)
    y.send(2)
    z.send(3)
    x.send(completion: .finished)  // x still has a value to pair
    #expect(waiting.events == [.subscription, .value([1, 2, 3])])
    z.send(4)
    #expect(
      waiting.events == [
        .subscription, .value([1, 2, 3]), .value([1, 2, 4]), .completion(.finished),
      ]
    )
  }

  @Test func aFailure_afterTheArraysTheDemandCovers() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    [a, b].zip().subscribe(recorder)
    recorder.request(.max(5))
    a.send(1)
    a.send(2)
    b.send(completion: .failure(TestError(code: 3)))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 3)))])
    #expect(a.requests.last == .cancel)
  }

  @Test func sendsFromSeveralThreads_everyArrayOnce_callsNeverOverlap() {
    let subjects = (0..<4).map { _ in PassthroughSubject<Int, TestError>() }
    let recorder = ConcurrentRecorder<[Int], TestError>()
    subjects.zip().subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: subjects.count) { index in
      for value in 0..<2_000 { subjects[index].send(value) }
    }
    subjects[0].send(completion: .finished)
    #expect(recorder.values == (0..<2_000).map { Array(repeating: $0, count: 4) })
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
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
