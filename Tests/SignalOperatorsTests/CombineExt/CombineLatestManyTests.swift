import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CombineLatestManyTests {
  let a = TestPublisher<Int, TestError>()
  let b = TestPublisher<Int, TestError>()
  let c = TestPublisher<Int, TestError>()

  @Test func collection_publishesArraysOfTheLatest_onceAllHaveSent() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    [a, b, c].combineLatest().subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(3)
    c.send(4)
    b.send(5)
    #expect(recorder.values == [[3, 2, 4], [3, 5, 4]])
  }

  @Test func combineLatestWith_variadicAndCollection_putThisPublisherFirst() {
    let variadic = RecordingSubscriber<[Int], TestError>()
    let collection = RecordingSubscriber<[Int], TestError>()
    a.combineLatest(with: b, c).subscribe(variadic)
    a.combineLatest(with: [b, c]).subscribe(collection)
    c.send(3)
    b.send(2)
    a.send(1)
    #expect(variadic.values == [[1, 2, 3]])
    #expect(collection.values == [[1, 2, 3]])
  }

  @Test func emptyCollection_finishesAtOnce_oneElement_givesOneElementArrays() {
    let none = RecordingSubscriber<[Int], TestError>()
    [TestPublisher<Int, TestError>]().combineLatest().subscribe(none)
    #expect(none.events == [.subscription, .completion(.finished)])
    let one = RecordingSubscriber<[Int], TestError>()
    [a].combineLatest().subscribe(one)
    a.send(1)
    a.send(completion: .finished)
    #expect(one.events == [.subscription, .value([1]), .completion(.finished)])
  }

  @Test func finishesWhenAllFinish_failsAtTheFirstFailure() {
    let finished = RecordingSubscriber<[Int], TestError>()
    [a, b].combineLatest().subscribe(finished)
    a.send(1)
    b.send(2)
    a.send(completion: .finished)
    b.send(3)
    b.send(completion: .finished)
    #expect(
      finished.events == [.subscription, .value([1, 2]), .value([1, 3]), .completion(.finished)]
    )

    let x = TestPublisher<Int, TestError>()
    let y = TestPublisher<Int, TestError>()
    let failed = RecordingSubscriber<[Int], TestError>()
    [x, y].combineLatest().subscribe(failed)
    x.send(1)
    y.send(completion: .failure(TestError()))
    #expect(failed.events == [.subscription, .completion(.failure(TestError()))])
    #expect(x.requests.last == .cancel)
  }

  @Test func limitedDemand_neverMoreThanRequested() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1))
    [a, b, c].combineLatest().subscribe(recorder)
    a.send(1)
    b.send(2)
    c.send(3)
    a.send(4)
    b.send(5)
    #expect(recorder.values == [[1, 2, 3]])
    #expect(recorder.violations.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values.count <= 2)
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsEveryPublisherAndReleasesTheSubscription() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    weak var subscription: AnyObject?
    do {
      [a, b, c].combineLatest().subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    recorder.cancel()
    for publisher in [a, b, c] { #expect(publisher.requests.last == .cancel) }
    #expect(subscription == nil)
  }

  // Item 2 of issue 39 (CombineExt's `testCombineLatestAtScale`): one subscription for the
  // whole collection, no chain of nested combineLatests to overflow the stack.
  @Test func atScale_aHundredThousandAndOneJusts_combineIntoOneArray() {
    let count = 100_001
    let recorder = RecordingSubscriber<[Int], Never>()
    Array(repeating: Just(2), count: count).combineLatest().subscribe(recorder)
    #expect(recorder.values.count == 1)
    #expect(recorder.values.first == Array(repeating: 2, count: count))
    #expect(recorder.completion == .finished)
    let erased = RecordingSubscriber<[Int], Never>()
    Just(1).combineLatest(with: (1..<count).map { Just($0 + 1) }).subscribe(erased)
    #expect(erased.values == [Array(1...count)])
    #expect(erased.completion == .finished)
  }

  @Test func aPublisherFinishingWithoutAValue_endsNothingWhileTheOthersGoOn() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    [a, b].combineLatest().subscribe(recorder)
    a.send(completion: .finished)
    b.send(1)
    #expect(recorder.events == [.subscription])
    #expect(!b.requests.contains(.cancel))
    b.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func aValueWithoutDemand_isHeld_theNextRequestSendsTheLatestValues() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    [a, b].combineLatest().subscribe(recorder)
    recorder.request(.max(2))
    for publisher in [a, b] { #expect(publisher.requests == [.demand(.max(2))]) }
    a.send(1)
    b.send(2)
    a.send(3)
    #expect(recorder.values == [[1, 2], [3, 2]])
    b.send(4)  // no demand left: held
    #expect(recorder.values == [[1, 2], [3, 2]])
    recorder.request(.max(1))
    #expect(recorder.values == [[1, 2], [3, 2], [3, 4]])
    for publisher in [a, b] {
      #expect(publisher.requests == [.demand(.max(2)), .demand(.max(1))])
    }
    #expect(recorder.violations.isEmpty)
  }

  @Test func aFailure_cancelsTheOthers_afterTheArraysAlreadyMade() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    [a, b, c].combineLatest().subscribe(recorder)
    a.send(1)
    b.send(2)
    c.send(3)
    b.send(completion: .failure(TestError(code: 5)))
    c.send(4)
    #expect(
      recorder.events == [
        .subscription, .value([1, 2, 3]), .completion(.failure(TestError(code: 5))),
      ]
    )
    #expect(a.requests.last == .cancel)
    #expect(c.requests.last == .cancel)
  }

  @Test func combineLatestMany_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [
          Publishers.Sequence<[Int], TestError>(sequence: [0]),
          Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]),
        ].combineLatest()
      },
      makeFailingPublisher: {
        [
          Publishers.Sequence<[Int], TestError>(sequence: [1]).eraseToAnyPublisher(),
          Record(output: [1, 2], completion: .failure(TestError())).eraseToAnyPublisher(),
        ].combineLatest()
      },
      makeLongPublisher: {
        [
          Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<1),
          Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000),
        ].combineLatest()
      }
    )
    .run(ConformanceRule.all.filter { $0 != .concurrentRequests })
    // SC-3.05 needs a fixed count under concurrent requests, which these upstreams can't give:
    // a thread's request can make the second upstream send before another thread's request has
    // made the first send, and a value that comes before every upstream has one is replaced.
    // concurrentRequests_addUpExactly() checks the rule with subjects instead.
    .expectAllPassed()
  }

  /// Requests from several threads at once add up: one array per requested value, no more,
  /// whatever the interleaving.
  @Test func concurrentRequests_addUpExactly() {
    let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: nil)
    subjects.combineLatest().subscribe(recorder)
    recorder.request(.max(1))
    for subject in subjects { subject.send(0) }
    let (threads, calls) = (4, 2_000)
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      for _ in 0..<calls { recorder.request(.max(1)) }
    }
    let total = threads * calls
    for value in 1...(total + 10) { subjects[1].send(value) }
    #expect(recorder.values.count == 1 + total)
    #expect(recorder.values.first == [0, 0, 0])
    #expect(recorder.values.last == [0, total, 0])
    #expect(recorder.violations.isEmpty)
  }
}
