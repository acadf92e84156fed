import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureMergeTests {
  @Test func allSucceed_valuesInArrayOrderNotCompletionOrder() {
    let promises = (0..<3).map { _ in Promise<Int, FutureTestError>() }
    let merged = Future.merge(promises.map(\.future))
    promises[2].resolve(30)
    promises[0].resolve(10)
    #expect(!merged.isComplete)
    promises[1].resolve(20)
    #expect(merged.resolvedValue == [10, 20, 30])
  }

  @Test func emptyArray_succeedsAtOnceWithEmptyArray() {
    let merged = Future<Int, FutureTestError>.merge([])
    #expect(merged.resolvedValue == [])
  }

  @Test func oneFails_failsAtOnceWithoutWaitingForTheRest() {
    let pending = Promise<Int, FutureTestError>()
    let failing = Promise<Int, FutureTestError>()
    let merged = Future.merge([pending.future, failing.future])
    failing.reject(.second)
    #expect(merged.error == .second)
  }

  @Test func severalFailed_firstFailureInArrayOrderWins() {
    let merged = Future.merge([
      Future<Int, FutureTestError>.of(1),
      Future<Int, FutureTestError>.error(.second),
      Future<Int, FutureTestError>.error(.first),
    ])
    #expect(merged.error == .second)
  }

  @Test func laterFailureInTime_earlierInArray_winsIfAlreadyFailed() {
    // Both fail before merge looks; the one earlier in the array wins, whatever the time order.
    let early = Promise<Int, FutureTestError>()
    let late = Promise<Int, FutureTestError>()
    late.reject(.third)
    early.reject(.first)
    let merged = Future.merge([early.future, late.future])
    #expect(merged.error == .first)
  }

  @Test func alreadyCompleteFutures_mergeAtOnce() {
    let merged = Future.merge([Future<Int, Never>.of(1), .of(2)])
    #expect(merged.resolvedValue == [1, 2])
  }
}
