import StreamCore
import StreamTesting
import Testing

@testable import StreamCombineExt

private typealias State = AmbState<RecordingSubscriber<Int, TestError>>

/// A racing state with both sides subscribed.
private func racing(_ first: SubscriptionProbe, _ second: SubscriptionProbe) -> State {
  var state = State.racing(State.Racing(downstream: RecordingSubscriber()))
  #expect(state.subscribed(first, side: .first) == Subscribers.Demand.none)
  #expect(state.subscribed(second, side: .second) == Subscribers.Demand.none)
  #expect(state.start() != nil)
  return state
}

@Suite(.timeLimit(.minutes(5))) struct AmbStateTests {
  @Test func requestsWhileRacing_goToBoth_andALateSideGetsTheirSum() {
    let first = SubscriptionProbe()
    let second = SubscriptionProbe()
    var state = State.racing(State.Racing(downstream: RecordingSubscriber()))
    #expect(state.subscribed(first, side: .first) == Subscribers.Demand.none)
    let targets = state.request(.max(2))
    #expect(first.isSame(as: targets.first))
    #expect(targets.second == nil)
    _ = state.request(.max(3))
    #expect(state.subscribed(second, side: .second) == .max(5))
    #expect(state.subscribed(SubscriptionProbe(), side: .second) == nil)
  }

  @Test func theFirstValue_decides_theLosersEventsAreDropped() {
    let first = SubscriptionProbe()
    let second = SubscriptionProbe()
    var state = racing(first, second)
    let delivery = state.receiveValue(from: .second)
    #expect(first.isSame(as: delivery?.loser))
    #expect(state.receiveValue(from: .first) == nil)
    #expect(state.receiveCompletion(.finished, from: .first) == nil)
    #expect(state.receiveValue(from: .second)?.loser == nil)
    let targets = state.request(.max(1))
    #expect(second.isSame(as: targets.first))
    #expect(targets.second == nil)
    #expect(state.subscribed(SubscriptionProbe(), side: .first) == nil)
  }

  @Test func aCompletion_decidesAndEnds() {
    let first = SubscriptionProbe()
    let second = SubscriptionProbe()
    var state = racing(first, second)
    let ending = state.receiveCompletion(.finished, from: .first)
    #expect(second.isSame(as: ending?.loser))
    #expect(first.isSame(as: ending?.ended))
    #expect(ending?.downstream != nil)
    #expect(state.receiveValue(from: .second) == nil)
    let cancelled = state.cancel()
    #expect(cancelled.first == nil && cancelled.second == nil && cancelled.downstream == nil)
  }

  @Test func beforeStart_aValueIsDropped_aCompletionDecidesAndWaitsForTheSubscription() {
    let first = SubscriptionProbe()
    let second = SubscriptionProbe()
    var state = State.racing(State.Racing(downstream: RecordingSubscriber()))
    _ = state.subscribed(first, side: .first)
    _ = state.subscribed(second, side: .second)
    #expect(state.receiveValue(from: .first) == nil)
    let ending = state.receiveCompletion(.failure(TestError()), from: .second)
    #expect(ending?.downstream == nil)
    #expect(first.isSame(as: ending?.loser))
    #expect(second.isSame(as: ending?.ended))
    #expect(state.receiveCompletion(.finished, from: .first) == nil)
    #expect(state.request(.max(1)).first == nil)
    #expect(state.start() != nil)
    #expect(state.takeEnding()?.completion == .failure(TestError()))
    #expect(state.takeEnding() == nil)
    #expect(state.cancel().downstream == nil)
  }

  @Test func cancelBeforeTheHeldCompletionIsTaken_releasesIt() {
    var state = State.racing(State.Racing(downstream: RecordingSubscriber()))
    _ = state.subscribed(SubscriptionProbe(), side: .first)
    #expect(state.receiveCompletion(.finished, from: .first) != nil)
    #expect(state.cancel().downstream != nil)
    #expect(state.takeEnding() == nil)
  }

  @Test func cancel_handsOutBothSidesAndTheSubscriber() {
    let first = SubscriptionProbe()
    let second = SubscriptionProbe()
    var state = racing(first, second)
    let cancelled = state.cancel()
    #expect(first.isSame(as: cancelled.first))
    #expect(second.isSame(as: cancelled.second))
    #expect(cancelled.downstream != nil)
    #expect(state.request(.max(1)).first == nil)
  }
}
