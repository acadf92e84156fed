import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ResultTests {

  let upstream = TestPublisher<Int, TestError>()
  let results = LockedState<[Result<Int, TestError>]>([])

  private func subscribe(onEmpty: TestError? = nil) -> AnyCancellable {
    upstream.result(onEmpty: onEmpty) { [results] result in results.withLock { $0.append(result) } }
  }

  @Test func firstValue_answersAtOnceAndCancelsUpstream() {
    let cancellable = subscribe()
    upstream.send(1)
    #expect(results.withLock { $0 } == [.success(1)])
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
    upstream.send(2)
    upstream.send(completion: .failure(TestError()))
    #expect(results.withLock { $0 } == [.success(1)])
    _ = cancellable
  }

  @Test func failure_answersWithTheFailure() {
    let cancellable = subscribe(onEmpty: TestError(code: 9))
    upstream.send(completion: .failure(TestError(code: 1)))
    #expect(results.withLock { $0 } == [.failure(TestError(code: 1))])
    #expect(upstream.requests == [.demand(.max(1))])
    _ = cancellable
  }

  @Test func emptyFinishWithOnEmpty_answersWithThatError() {
    let cancellable = subscribe(onEmpty: TestError(code: 2))
    upstream.send(completion: .finished)
    #expect(results.withLock { $0 } == [.failure(TestError(code: 2))])
    _ = cancellable
  }

  @Test func emptyFinishWithoutOnEmpty_staysSilent() {
    let cancellable = subscribe()
    upstream.send(completion: .finished)
    #expect(results.withLock { $0 }.isEmpty)
    _ = cancellable
  }

  @Test func onEmpty_isEvaluatedOnlyOnAnEmptyFinish() {
    let evaluations = LockedState(0)
    func makeError() -> TestError? {
      evaluations.withLock { $0 += 1 }
      return TestError(code: 3)
    }
    let cancellable = upstream.result(onEmpty: makeError()) { _ in }
    upstream.send(1)
    #expect(evaluations.withLock { $0 } == 0)
    _ = cancellable
    let other = TestPublisher<Int, TestError>()
    let second = other.result(onEmpty: makeError()) { _ in }
    other.send(completion: .finished)
    #expect(evaluations.withLock { $0 } == 1)
    _ = second
  }

  @Test func cancelBeforeAnyValue_cancelsUpstreamAndNeverAnswers() {
    let cancellable = subscribe(onEmpty: TestError())
    cancellable.cancel()
    cancellable.cancel()
    upstream.send(completion: .finished)
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
    #expect(results.withLock { $0 }.isEmpty)
  }

  @Test func synchronousPublisher_answersBeforeReturning() {
    let answer = LockedState<Result<Int, Never>?>(nil)
    [5, 6, 7].publisher.result { result in answer.withLock { $0 = result } }
    #expect(answer.withLock { $0 } == .success(5))
  }

  @Test func afterTheAnswer_handlerIsReleased() {
    weak var weakTracker: Tracker?
    let cancellable: AnyCancellable
    do {
      let tracker = Tracker()
      weakTracker = tracker
      cancellable = upstream.result { _ in tracker.touch() }
    }
    #expect(weakTracker != nil)
    upstream.send(1)
    #expect(weakTracker == nil)
    _ = cancellable
  }

  @Test func afterCancel_handlerIsReleased() {
    weak var weakTracker: Tracker?
    let cancellable: AnyCancellable
    do {
      let tracker = Tracker()
      weakTracker = tracker
      cancellable = upstream.result { _ in tracker.touch() }
    }
    cancellable.cancel()
    #expect(weakTracker == nil)
  }
}

/// An object to watch for release.
private final class Tracker: Sendable {
  func touch() {}
}
