import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// The combining operators as marble lines: several hot inputs on one scheduler, and inner
/// publishers as cold lines, whose subscription logs show when they were subscribed and
/// cancelled.
@Suite(.timeLimit(.minutes(5))) struct CombiningMarbleTests {
  let scheduler = TestScheduler()

  @Test func merge_interleavesBothInputs_andFinishesAfterBoth() {
    let left = scheduler.hot("-a---b-|")
    let right = scheduler.hot("--1---2--|")
    scheduler.expectMarbles(left.merge(with: right), "-a1--b2--|")
  }

  @Test func combineLatest_pairsTheLatestOfEach() {
    let left = scheduler.hot("-a---b---|")
    let right = scheduler.hot("---1---2-|")
    scheduler.expectMarbles(
      left.combineLatest(right).map { $0 + $1 },
      "---x-y-z-|",
      values: ["x": "a1", "y": "b1", "z": "b2"]
    )
  }

  @Test func zip_pairsInOrder_andFinishesWithTheShorterInput() {
    let left = scheduler.hot("-a--b--c|")
    let right = scheduler.hot("---1---2|")
    scheduler.expectMarbles(
      left.zip(right).map { $0 + $1 },
      "---x---y|",
      values: ["x": "a1", "y": "b2"]
    )
  }

  @Test func switchToLatest_cancelsThePreviousInner() {
    let first = scheduler.cold("-a-b-c|")
    let second = scheduler.cold("-d-e|")
    let outer = scheduler.hot("-x---y-----|", values: ["x": first, "y": second])
    scheduler.expectMarbles(outer.switchToLatest(), "--a-b-d-e--|")
    #expect(first.subscriptionLines.map { $0.rendered() } == ["-(^*)!"])
    #expect(second.subscriptionLines.map { $0.rendered() } == ["-----(^*)"])
  }

  @Test func flatMap_mergesEveryInner_andFinishesAfterAll() {
    let first = scheduler.cold("-a--b|")
    let second = scheduler.cold("-c---d|")
    let outer = scheduler.hot("-x--y-----|", values: ["x": first, "y": second])
    scheduler.expectMarbles(outer.flatMap { $0 }, "--a--(bc)d|")
  }

  @Test func retry_resubscribesTheColdInput_thenFails() {
    let input = scheduler.cold("-a#", error: TestError())
    scheduler.expectMarbles(input.retry(2), "-a-a-a#", error: TestError())
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)", "--(^*)", "----(^*)"])
  }
}
