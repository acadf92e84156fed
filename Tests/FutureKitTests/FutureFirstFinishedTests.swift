import FutureKit
import StreamConbini
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureFirstFinishedTests {
  @Test func firstSuccess_wins() {
    let slow = Promise<Int, FutureTestError>()
    let fast = Promise<Int, FutureTestError>()
    let first = Future.firstFinished(from: [slow.future, fast.future])
    fast.resolve(2)
    slow.resolve(1)
    #expect(first.resolvedValue == 2)
  }

  @Test func failureBeforeASuccess_isIgnored() {
    let failing = Promise<Int, FutureTestError>()
    let succeeding = Promise<Int, FutureTestError>()
    let first = Future.firstFinished(from: [failing.future, succeeding.future])
    failing.reject(.first)
    #expect(!first.isComplete)
    succeeding.resolve(5)
    #expect(first.resolvedValue == 5)
  }

  /// Propagate's code (not its doc comment): the error of the last future to fail.
  @Test func allFail_failsWithTheLastFutureToFail() {
    let a = Promise<Int, FutureTestError>()
    let b = Promise<Int, FutureTestError>()
    let c = Promise<Int, FutureTestError>()
    let first = Future.firstFinished(from: [a.future, b.future, c.future])
    c.reject(.third)
    a.reject(.first)
    #expect(!first.isComplete)
    b.reject(.second)
    #expect(first.error == .second)
  }

  @Test func alreadySucceeded_completesAtOnce() {
    let first = Future.firstFinished(from: [Promise<Int, Never>().future, .of(3)])
    #expect(first.resolvedValue == 3)
  }

  @Test func emptyArray_neverCompletes() {
    let first = Future<Int, FutureTestError>.firstFinished(from: [])
    #expect(!first.isComplete)
  }
}
