import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// `delay` as marble lines: the timing cases of `DelayTests`, with a delay of three frames.
@Suite(.timeLimit(.minutes(5))) struct DelayMarbleTests {
  let scheduler = TestScheduler()

  @Test func values_andFinish_shiftByTheInterval() {
    let input = scheduler.hot("-a-b-|")
    scheduler.expectMarbles(input.delay(for: 3, scheduler: scheduler), "----a-b-|")
  }

  @Test func simultaneousValues_stayTogetherInOrder() {
    let input = scheduler.hot("-(abc)|")
    scheduler.expectMarbles(input.delay(for: 3, scheduler: scheduler), "----(abc)|")
  }

  @Test func failureBeforeValues_delayed() {
    let input = scheduler.hot("-#", error: TestError())
    scheduler.expectMarbles(input.delay(for: 3, scheduler: scheduler), "----#", error: TestError())
  }

  @Test func failureAfterValues_deliveredAfterThem() {
    let input = scheduler.hot("-a#", error: TestError())
    scheduler.expectMarbles(
      input.delay(for: 3, scheduler: scheduler),
      "----a#",
      error: TestError()
    )
  }

  @Test func demand_isForwardedUpstream() {
    let input = scheduler.hot("-a-b-c-|")
    scheduler.expectMarbles(
      input.delay(for: 3, scheduler: scheduler),
      "----a---c-|",
      demand: "(^1)1"
    )
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^1)1"])
  }

  @Test func cancelBeforeDue_dropsPendingEvents() {
    let input = scheduler.hot("-a-b-|")
    scheduler.expectMarbles(input.delay(for: 3, scheduler: scheduler), "----a", demand: "(^*)-!")
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)-!"])
  }
}
