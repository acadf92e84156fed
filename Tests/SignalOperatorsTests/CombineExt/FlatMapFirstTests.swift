import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FlatMapFirstTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func valuesWhileAnInnerIsActive_areDropped() {
    let inners = (0..<4).map { _ in TestPublisher<String, TestError>() }
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.flatMapFirst { inners[$0] }.subscribe(recorder)
    upstream.send(0)
    inners[0].send("a")
    upstream.send(1)  // dropped: inner 0 is active
    inners[0].send("b")
    inners[0].send(completion: .finished)
    upstream.send(2)
    inners[2].send("c")
    #expect(recorder.values == ["a", "b", "c"])
    #expect(inners[1].subscriptionCount == 0)
    #expect(inners[2].subscriptionCount == 1)
  }

  @Test func eachSubscription_hasItsOwnActiveFlag() {
    let subject = PassthroughSubject<Int, TestError>()
    let inner = TestPublisher<Int, TestError>()
    let shared = subject.flatMapFirst { value in
      value == 0
        ? inner.eraseToAnyPublisher()
        : Just(value).setFailureType(to: TestError.self).eraseToAnyPublisher()
    }
    let busy = RecordingSubscriber<Int, TestError>()
    shared.subscribe(busy)
    subject.send(0)  // busy's inner stays active
    let fresh = RecordingSubscriber<Int, TestError>()
    shared.subscribe(fresh)
    subject.send(5)
    #expect(busy.values.isEmpty)
    #expect(fresh.values == [5])
  }

  @Test func finishesOnceUpstreamAndTheActiveInnerFinish_failsWithEither() {
    let inner = TestPublisher<String, TestError>()
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.flatMapFirst { _ in inner }.subscribe(recorder)
    upstream.send(0)
    upstream.send(completion: .finished)
    #expect(recorder.completion == nil)
    inner.send(completion: .finished)
    #expect(recorder.completion == .finished)

    let failing = TestPublisher<Int, TestError>()
    let other = TestPublisher<String, TestError>()
    let failed = RecordingSubscriber<String, TestError>()
    failing.flatMapFirst { _ in other }.subscribe(failed)
    failing.send(0)
    other.send(completion: .failure(TestError(code: 2)))
    #expect(failed.completion == .failure(TestError(code: 2)))
    // As CombineExt's, built on Combine's `flatMap`: the upstream is let go of, not cancelled.
    #expect(failing.requests == [.demand(.unlimited)])
  }

  @Test func limitedDemand_goesToTheInner() {
    let inner = TestPublisher<String, TestError>()
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(2))
    upstream.flatMapFirst { _ in inner }.subscribe(recorder)
    upstream.send(0)
    inner.send("a")
    inner.send("b")
    inner.send("c")
    #expect(recorder.values == ["a", "b"])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsUpstreamAndInner_andReleasesTheSubscription() {
    let inner = TestPublisher<String, TestError>()
    let recorder = RecordingSubscriber<String, TestError>()
    weak var subscription: AnyObject?
    do {
      upstream.flatMapFirst { _ in inner }.subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    upstream.send(0)
    recorder.cancel()
    #expect(upstream.requests.last == .cancel)
    #expect(inner.requests.last == .cancel)
    #expect(subscription == nil)
  }

  @Test func concurrentValuesAndInnerCompletions_neverTwoInnersAtOnce() {
    let outer = PassthroughSubject<Int, Never>()
    let active = LockedState(0)
    let overlaps = CallCounter()
    let recorder = ConcurrentRecorder<Int, Never>()
    outer.flatMapFirst { value in
      Just(value).subscribe(on: DispatchQueue.global()).handleEvents(
        receiveSubscription: { _ in
          let before = active.withLock { count in
            defer { count += 1 }
            return count
          }
          if before > 0 { overlaps.increment() }
        },
        receiveCompletion: { _ in active.withLock { $0 -= 1 } }
      )
    }
    .subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<500 { outer.send(side * 1_000 + value) }
    }
    #expect(overlaps.value == 0)
    #expect(recorder.violations.isEmpty)
  }

  @Test func flatMapFirst_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0])
          .flatMapFirst { _ in Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]) }
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0])
          .flatMapFirst { _ in
            Record<Int, TestError>(output: [1, 2], completion: .failure(TestError()))
          }
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0])
          .flatMapFirst { _ in Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000) }
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
