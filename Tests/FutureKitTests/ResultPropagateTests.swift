import FutureKit
import StreamConbini
import StreamPropagate
import Testing

/// Propagate's `Result` helpers and `SuccessOnlyFuture`.
@Suite(.timeLimit(.minutes(5))) struct ResultPropagateTests {
  @Test func onSuccessAndOnError_runTheMatchingClosureAtOnceAndChain() {
    var log: [String] = []
    let success: Result<Int, FutureTestError> = .success(3)
    let failure: Result<Int, FutureTestError> = .failure(.first)
    success.onSuccess { log.append("value \($0)") }.onError { log.append("error \($0)") }
    failure.onSuccess { log.append("value \($0)") }.onError { log.append("error \($0)") }
    #expect(log == ["value 3", "error \(FutureTestError.first)"])
  }

  @Test func successAndFailure_readTheCase() {
    let success: Result<Int, FutureTestError> = .success(3)
    let failure: Result<Int, FutureTestError> = .failure(.second)
    #expect(success.success == 3)
    #expect(success.failure == nil)
    #expect(failure.success == nil)
    #expect(failure.failure == .second)
    let block: Result<Int, FutureTestError>.SuccessBlock = { _ in }
    let errorBlock: Result<Int, FutureTestError>.ErrorBlock = { _ in }
    success.onSuccess(block).onError(errorBlock)
  }

  @Test func successOnlyFuture_isAFutureThatNeverFails() {
    let promise = Promise<Int, FutureTestError>()
    let only: SuccessOnlyFuture<Int> = promise.future.successOnly()
    promise.resolve(7)
    #expect(only.resolvedValue == 7)
  }
}
