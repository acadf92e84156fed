import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// `throttle` as marble lines: the timing cases of `ThrottleTests`, with an interval of four
/// frames.
@Suite(.timeLimit(.minutes(5))) struct ThrottleMarbleTests {
  let scheduler = TestScheduler()

  @Test func latestTrue_emitsTheFirstValueAtOnce_thenTheLatestOfEachInterval() {
    let input = scheduler.hot("-abc-------d--|")
    scheduler.expectMarbles(
      input.throttle(for: 4, scheduler: scheduler, latest: true),
      "-a---c-----d--|"
    )
  }

  @Test func latestFalse_emitsTheFirstValueOfEachInterval() {
    let input = scheduler.hot("-abc-------d--|")
    scheduler.expectMarbles(
      input.throttle(for: 4, scheduler: scheduler, latest: false),
      "-a---b-----d--|"
    )
  }

  @Test func finishWithHeldValue_sendsItThenFinishes() {
    let input = scheduler.hot("-ab|")
    scheduler.expectMarbles(
      input.throttle(for: 4, scheduler: scheduler, latest: true),
      "-a---(b|)"
    )
  }

  @Test func finishWithoutHeldValue_deliveredAtOnce() {
    let input = scheduler.hot("---|")
    scheduler.expectMarbles(input.throttle(for: 4, scheduler: scheduler, latest: true), "---|")
  }

  @Test func failureAfterValue_delivered() {
    let input = scheduler.hot("-a#", error: TestError())
    scheduler.expectMarbles(
      input.throttle(for: 4, scheduler: scheduler, latest: false),
      "-a#",
      error: TestError()
    )
  }

  @Test func demandMaxOne_onlyOneValue() {
    let input = scheduler.hot("-a-----b--|")
    scheduler.expectMarbles(
      input.throttle(for: 4, scheduler: scheduler, latest: true),
      "-a--------|",
      demand: "(^1)"
    )
  }

  @Test func cancelWithHeldValue_nothingDelivered() {
    let input = scheduler.hot("-ab---|")
    scheduler.expectMarbles(
      input.throttle(for: 4, scheduler: scheduler, latest: true),
      "-a",
      demand: "(^*)!"
    )
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)!"])
  }
}
