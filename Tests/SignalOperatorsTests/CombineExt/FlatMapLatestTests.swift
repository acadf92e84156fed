import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FlatMapLatestTests {
  let upstream = TestPublisher<Int, TestError>()
  let inners = [TestPublisher<String, TestError>(), TestPublisher<String, TestError>()]

  @Test func publishesTheLatestInner_cancellingTheOneBefore() {
    let inners = self.inners
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.flatMapLatest { inners[$0] }.subscribe(recorder)
    upstream.send(0)
    inners[0].send("a")
    upstream.send(1)
    inners[0].send("stale")
    inners[1].send("b")
    #expect(recorder.values == ["a", "b"])
    #expect(inners[0].requests == [.demand(.unlimited), .cancel])
  }

  @Test func finishesOnceUpstreamAndTheCurrentInnerFinish_failsWithEither() {
    let inners = self.inners
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.flatMapLatest { inners[$0] }.subscribe(recorder)
    upstream.send(0)
    upstream.send(completion: .finished)
    #expect(recorder.completion == nil)
    inners[0].send(completion: .finished)
    #expect(recorder.completion == .finished)

    let failing = TestPublisher<Int, TestError>()
    let inner = TestPublisher<String, TestError>()
    let failed = RecordingSubscriber<String, TestError>()
    failing.flatMapLatest { _ in inner }.subscribe(failed)
    failing.send(0)
    inner.send(completion: .failure(TestError(code: 6)))
    #expect(failed.completion == .failure(TestError(code: 6)))
    #expect(failing.requests.last == .cancel)
  }

  @Test func unmetDemand_movesOnToTheNextInner() {
    let inners = self.inners
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(3))
    upstream.flatMapLatest { inners[$0] }.subscribe(recorder)
    upstream.send(0)
    inners[0].send("a")
    upstream.send(1)
    #expect(inners[1].requests == [.demand(.max(2))])
    inners[1].send("b")
    inners[1].send("c")
    inners[1].send("d")  // beyond demand: the test publisher drops it
    #expect(recorder.values == ["a", "b", "c"])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsUpstreamAndInner_andReleasesTheSubscription() {
    let inners = self.inners
    let recorder = RecordingSubscriber<String, TestError>()
    weak var subscription: AnyObject?
    do {
      upstream.flatMapLatest { inners[$0] }.subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    upstream.send(0)
    recorder.cancel()
    #expect(upstream.requests.last == .cancel)
    #expect(inners[0].requests.last == .cancel)
    #expect(subscription == nil)
  }

  @Test func concurrentSwitchesAndSends_keepTheContract() {
    let outer = PassthroughSubject<Int, TestError>()
    let subjects = (0..<3).map { _ in PassthroughSubject<Int, TestError>() }
    let recorder = ConcurrentRecorder<Int, TestError>()
    outer.flatMapLatest { subjects[$0] }.subscribe(recorder)
    outer.send(0)
    DispatchQueue.concurrentPerform(iterations: subjects.count + 1) { index in
      if index == subjects.count {
        for round in 0..<300 { outer.send(round % subjects.count) }
      } else {
        for value in 0..<2_000 { subjects[index].send(index * 10_000 + value) }
      }
    }
    let values = recorder.values
    #expect(Set(values).count == values.count)
    for index in subjects.indices {
      let mine = values.filter { $0 / 10_000 == index }
      #expect(mine == mine.sorted())
    }
    #expect(recorder.violations.isEmpty)
  }

  // The upstream is asked for unlimited values at once, so an inner publisher that waits for
  // demand is replaced by the next: one upstream value, whose inner publisher sends them all.
  @Test func flatMapLatest_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0])
          .flatMapLatest { _ in Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]) }
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0])
          .flatMapLatest { _ in
            Record<Int, TestError>(output: [1, 2], completion: .failure(TestError()))
          }
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0])
          .flatMapLatest { _ in
            Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000)
          }
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
