import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// `timeout` as marble lines: the timing cases of `TimeoutTests`, with five frames.
@Suite(.timeLimit(.minutes(5))) struct TimeoutMarbleTests {
  let scheduler = TestScheduler()

  @Test func noValue_failsWithCustomError() {
    let input = scheduler.hot("--------", error: TestError())
    scheduler.expectMarbles(
      input.timeout(5, scheduler: scheduler) { TestError() },
      "-----#",
      error: TestError()
    )
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)-!"])
  }

  @Test func noValue_finishesWithoutCustomError() {
    let input = scheduler.hot("--------")
    scheduler.expectMarbles(input.timeout(5, scheduler: scheduler), "-----|")
  }

  @Test func eachValue_restartsTheTimer() {
    let input = scheduler.hot("----a----b------")
    scheduler.expectMarbles(input.timeout(5, scheduler: scheduler), "----a----b----|")
  }

  @Test func upstreamFinish_stopsTheTimer() {
    let input = scheduler.hot("-a-|")
    scheduler.expectMarbles(input.timeout(5, scheduler: scheduler), "-a-|")
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func upstreamFailureBeforeValues_delivered() {
    let input = scheduler.hot("--#", error: TestError())
    scheduler.expectMarbles(input.timeout(5, scheduler: scheduler), "--#", error: TestError())
  }

  @Test func cancel_stopsTimerAndUpstream() {
    let input = scheduler.hot("-a------")
    scheduler.expectMarbles(input.timeout(5, scheduler: scheduler), "-a", demand: "(^*)--!")
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)--!"])
  }
}
