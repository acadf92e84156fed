import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureStateTests {
  @Test func pendingFuture_reportsNothing() {
    let future = Promise<Int, FutureTestError>().future
    #expect(!future.isComplete)
    #expect(!future.succeeded)
    #expect(!future.failed)
    #expect(future.resolvedValue == nil)
    #expect(future.error == nil)
  }

  @Test func of_isSucceeded() {
    let future = Future<Int, FutureTestError>.of(5)
    #expect(future.isComplete)
    #expect(future.succeeded)
    #expect(!future.failed)
    #expect(future.resolvedValue == 5)
    #expect(future.error == nil)
  }

  @Test func error_isFailed() {
    let future = Future<Int, FutureTestError>.error(.first)
    #expect(future.isComplete)
    #expect(!future.succeeded)
    #expect(future.failed)
    #expect(future.resolvedValue == nil)
    #expect(future.error == .first)
  }

  @Test func stateIsSet_beforeResolveReturnsAndBeforeCallbacksRun() async {
    let promise = Promise<Int, Never>()
    let seen = LockedState<Bool?>(nil)
    promise.future.onSuccess { [future = promise.future] _ in
      seen.withLock { $0 = future.isComplete && future.resolvedValue == 1 }
    }
    promise.resolve(1)
    #expect(promise.future.isComplete)
    await promise.future.waitForCallbacks()
    #expect(seen.withLock { $0 } == true)
  }

  @Test func combineStyleFuture_reportsItsState() {
    let future = Future<Int, FutureTestError> { $0(.success(2)) }
    #expect(future.resolvedValue == 2)
  }
}
