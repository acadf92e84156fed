import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// `debounce` as marble lines: the cases of `DebounceTests` that are about timing and demand.
/// A frame is one tick, so `debounce(for: 3)` waits three frames.
@Suite(.timeLimit(.minutes(5))) struct DebounceMarbleTests {
  let scheduler = TestScheduler()

  @Test func burstThenQuiet_emitsOnlyTheLastValue() {
    let input = scheduler.hot("-ab------|")
    scheduler.expectMarbles(input.debounce(for: 3, scheduler: scheduler), "-----b---|")
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)"])
  }

  @Test func spacedValues_eachEmitted() {
    let input = scheduler.hot("-a----b----|")
    scheduler.expectMarbles(input.debounce(for: 3, scheduler: scheduler), "----a----b-|")
  }

  @Test func finishWithPendingValue_dropsIt() {
    let input = scheduler.hot("-a|")
    scheduler.expectMarbles(input.debounce(for: 3, scheduler: scheduler), "--|")
  }

  @Test func failureAfterValue_delivered() {
    let input = scheduler.hot("-a---#", error: TestError())
    scheduler.expectMarbles(
      input.debounce(for: 3, scheduler: scheduler),
      "----a#",
      error: TestError()
    )
  }

  @Test func failureBeforeValues_delivered() {
    let input = scheduler.hot("-#", error: TestError())
    scheduler.expectMarbles(input.debounce(for: 3, scheduler: scheduler), "-#", error: TestError())
  }

  @Test func demandNone_dueValueDropped() {
    let input = scheduler.hot("-a----b----|")
    scheduler.expectMarbles(
      input.debounce(for: 3, scheduler: scheduler),
      "---------b-|",
      demand: "^----1"
    )
  }

  @Test func demandMaxOne_secondValueDropped() {
    let input = scheduler.hot("-a----b----|")
    scheduler.expectMarbles(
      input.debounce(for: 3, scheduler: scheduler),
      "----a------|",
      demand: "(^1)"
    )
  }

  @Test func cancelBeforeDue_cancelsUpstreamAndEmitsNothing() {
    // The group `(^*)` takes frames 0 to 3, so `!` is at frame 4, before `a` falls due at 5.
    let input = scheduler.hot("--a-----|")
    scheduler.expectMarbles(input.debounce(for: 3, scheduler: scheduler), "", demand: "(^*)!")
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)!"])
  }
}
