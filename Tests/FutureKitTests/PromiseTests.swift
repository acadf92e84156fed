import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct PromiseTests {
  @Test func newPromise_hasAPendingFuture() {
    let promise = Promise<Int, FutureTestError>()
    #expect(!promise.future.isComplete)
    #expect(promise.future.resolvedValue == nil)
    #expect(promise.future.error == nil)
  }

  @Test func initWithValue_hasASucceededFuture() {
    let promise = Promise<Int, FutureTestError>(value: 3)
    #expect(promise.future.resolvedValue == 3)
    #expect(promise.future.succeeded)
  }

  @Test func initWithError_hasAFailedFuture() {
    let promise = Promise<Int, FutureTestError>(error: .first)
    #expect(promise.future.error == .first)
    #expect(promise.future.failed)
  }

  @Test func future_isTheSameObjectEachTime() {
    let promise = Promise<Int, Never>()
    #expect(promise.future === promise.future)
  }

  @Test func resolve_completesAndReportsTheWin() {
    let promise = Promise<Int, FutureTestError>()
    #expect(promise.resolve(1))
    #expect(promise.future.resolvedValue == 1)
  }

  @Test func reject_completesAndReportsTheWin() {
    let promise = Promise<Int, FutureTestError>()
    #expect(promise.reject(.second))
    #expect(promise.future.error == .second)
  }

  @Test func completeWithResult_completesAndReportsTheWin() {
    let promise = Promise<Int, FutureTestError>()
    #expect(promise.complete(withResult: .failure(.third)))
    #expect(promise.future.error == .third)
  }

  @Test func laterCompletions_loseAndChangeNothing() {
    let promise = Promise<Int, FutureTestError>()
    promise.resolve(1)
    #expect(!promise.resolve(2))
    #expect(!promise.reject(.first))
    #expect(!promise.complete(withResult: .success(3)))
    #expect(promise.future.resolvedValue == 1)
  }

  @Test func preCompletedPromise_ignoresCompletions() {
    let promise = Promise<Int, FutureTestError>(error: .first)
    #expect(!promise.resolve(1))
    #expect(promise.future.error == .first)
  }

  @Test func laterCompletions_runNoCallbackAgain() async {
    let promise = Promise<Int, Never>()
    let calls = LockedState(0)
    promise.future.onSuccess { _ in calls.withLock { $0 += 1 } }
    promise.resolve(1)
    promise.resolve(2)
    await promise.future.waitForCallbacks()
    #expect(calls.withLock { $0 } == 1)
  }

  @Test func completeOnPendingFuture_completesWhenItDoes() {
    let source = Promise<Int, FutureTestError>()
    let promise = Promise<Int, FutureTestError>()
    promise.completeOn(future: source.future)
    #expect(!promise.future.isComplete)
    source.reject(.second)
    #expect(promise.future.error == .second)
  }

  @Test func completeOnCompletedFuture_completesAtOnce() {
    let promise = Promise<Int, FutureTestError>()
    promise.completeOn(future: .of(7))
    #expect(promise.future.resolvedValue == 7)
  }

  @Test func completeOn_losesToAnEarlierCompletion() {
    let source = Promise<Int, FutureTestError>()
    let promise = Promise<Int, FutureTestError>()
    promise.completeOn(future: source.future)
    promise.resolve(1)
    source.resolve(2)
    #expect(promise.future.resolvedValue == 1)
  }
}
