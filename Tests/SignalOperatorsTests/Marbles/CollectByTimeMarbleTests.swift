import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// `collect(.byTime)` and `collect(.byTimeOrCount)` as marble lines: the timing cases of
/// `CollectByTimeTests`, with windows of four frames.
@Suite(.timeLimit(.minutes(5))) struct CollectByTimeMarbleTests {
  let scheduler = TestScheduler()

  @Test func byTime_emitsAGroupEveryInterval_andSkipsEmptyOnes() {
    let input = scheduler.hot("-ab-------c--|")
    scheduler.expectMarbles(
      input.collect(.byTime(scheduler, 4)),
      "----x-------y|",
      values: ["x": ["a", "b"], "y": ["c"]]
    )
  }

  @Test func finish_emitsThePartialGroupThenFinishes() {
    let input = scheduler.hot("-ab|")
    scheduler.expectMarbles(
      input.collect(.byTime(scheduler, 4)),
      "---(x|)",
      values: ["x": ["a", "b"]]
    )
  }

  @Test func failure_dropsCollectedValues() {
    let input = scheduler.hot("-ab#", error: TestError())
    scheduler.expectMarbles(
      input.collect(.byTime(scheduler, 4)),
      "---#",
      values: [:],
      error: TestError()
    )
  }

  @Test func byTimeOrCount_emitsWhenFull_orWhenTheIntervalEnds() {
    let input = scheduler.hot("-abc---------|")
    scheduler.expectMarbles(
      input.collect(.byTimeOrCount(scheduler, 4, 2)),
      "--x-y--------|",
      values: ["x": ["a", "b"], "y": ["c"]]
    )
  }
}
