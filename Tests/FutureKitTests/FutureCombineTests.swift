import FutureKit
import StreamConbini
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureCombineTests {
  @Test func twoFutures_succeedWithATuple() {
    let number = Promise<Int, FutureTestError>()
    let text = Promise<String, FutureTestError>()
    let combined = Future.combine(number.future, text.future)
    text.resolve("a")
    #expect(!combined.isComplete)
    number.resolve(1)
    let value = combined.resolvedValue
    #expect(value?.0 == 1)
    #expect(value?.1 == "a")
  }

  @Test func sevenFutures_goBeyondPropagatesSix() {
    let combined = Future.combine(
      Future<Int, FutureTestError>.of(1),
      Future<String, FutureTestError>.of("2"),
      Future<Double, FutureTestError>.of(3),
      Future<Bool, FutureTestError>.of(true),
      Future<Int, FutureTestError>.of(5),
      Future<Int, FutureTestError>.of(6),
      Future<[Int], FutureTestError>.of([7])
    )
    let value = combined.resolvedValue
    #expect(value?.0 == 1)
    #expect(value?.1 == "2")
    #expect(value?.2 == 3)
    #expect(value?.3 == true)
    #expect(value?.6 == [7])
  }

  @Test func oneFails_failsWithTheFirstFailureInTime() {
    let a = Promise<Int, FutureTestError>()
    let b = Promise<Int, FutureTestError>()
    let combined = Future.combine(a.future, b.future)
    b.reject(.second)
    #expect(combined.error == .second)
    a.reject(.first)
    #expect(combined.error == .second)
  }

  @Test func singleFuture_isItsValue() {
    let combined: Future<Int, Never> = Future.combine(Future<Int, Never>.of(4))
    #expect(combined.resolvedValue == 4)
  }

  @Test func noFutures_succeedAtOnce() {
    let combined: Future<Void, Never> = Future.combine()
    #expect(combined.succeeded)
  }

  @Test func combineWith_putsThisFutureFirst() {
    let combined = Future<Int, FutureTestError>.of(1)
      .combineWith(Future<String, FutureTestError>.of("b"), Future<Bool, FutureTestError>.of(false))
    let value = combined.resolvedValue
    #expect(value?.0 == 1)
    #expect(value?.1 == "b")
    #expect(value?.2 == false)
  }

  @Test func combineWith_failsWhenAnyFails() {
    let combined = Future<Int, FutureTestError>.of(1)
      .combineWith(Future<String, FutureTestError>.error(.third))
    #expect(combined.error == .third)
  }
}
