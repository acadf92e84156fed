import StreamCore
import Testing

@testable import SignalOperators

private typealias State = FlatMapState<Int, Int, TestError, Int>

/// `"finished"` or `"failure <code>"`.
private func name(_ completion: Subscribers.Completion<TestError>) -> String {
  if case .failure(let error) = completion { return "failure \(error.code)" }
  return "finished"
}

/// Runs the drain as the thread holding it would, each value returning `perValue`, asking each
/// top-up for one more; the log names each step.
private func drainAll(
  _ state: inout State,
  adding first: Subscribers.Demand = .none,
  perValue: Subscribers.Demand = .none
) -> [String] {
  var log: [String] = []
  var more = first
  while let step = state.nextStep(adding: more) {
    more = .none
    switch step {
    case .value(let value, let topUp):
      log.append(topUp == nil ? "value \(value)" : "value \(value) topUp")
      topUp?.request(.max(1))
      more = perValue
    case .completion(let completion, let dropped):
      log.append("\(name(completion)) dropped \(Array(dropped.map(\.value)))")
    }
  }
  return log
}

/// A state whose upstream subscription is `upstream`.
private func subscribed(_ upstream: SubscriptionProbe) -> State {
  var state = State { $0 }
  let accepted = state.receive(subscription: upstream)
  #expect(accepted)
  return state
}

/// Claims a child and hands it `subscription`; returns its tag.
private func child(_ state: inout State, _ subscription: SubscriptionProbe) -> InnerTag {
  guard let claim = state.claimChild() else {
    Issue.record("expected a child slot")
    return .just
  }
  let demand = state.childSubscribed(claim.tag, subscription)
  #expect(demand != nil)
  return claim.tag
}

/// flatMap's state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct FlatMapStateTests {
  @Test func upstreamSubscription_acceptedOnce() {
    var state = State { $0 }
    let first = state.receive(subscription: SubscriptionProbe())
    let second = state.receive(subscription: SubscriptionProbe())
    #expect(first)
    #expect(!second)
  }

  @Test func justValue_withDemandAndNothingQueued_isDeliveredByTheCaller() {
    var state = subscribed(SubscriptionProbe())
    let requested = state.request(.max(2))
    #expect(!requested)  // nothing to deliver yet
    let first = state.receive(1, from: .just)
    #expect(first == .deliver(unlimited: false))
    let second = state.receive(2, from: .just)
    #expect(second == .deliver(unlimited: false))  // nothing queued: its caller delivers it too
    let third = state.receive(3, from: .just)
    #expect(third == .queued)  // no demand left
    let delivers = state.request(.max(1))
    #expect(delivers)
    #expect(drainAll(&state) == ["value 3"])
  }

  @Test func justValue_withoutDemand_waitsForARequest() {
    var state = subscribed(SubscriptionProbe())
    let outcome = state.receive(1, from: .just)
    #expect(outcome == .queued)
    let claimed = state.request(.max(1))
    #expect(claimed)
    #expect(drainAll(&state) == ["value 1"])
    let next = state.receive(2, from: .just)
    #expect(next == .queued)
  }

  @Test func childSubscribed_asksOneAtATime_orUnlimitedWhileDemandIs() {
    var state = subscribed(SubscriptionProbe())
    _ = state.request(.max(3))
    let limited = state.claimChild()
    let limitedDemand = limited.flatMap { state.childSubscribed($0.tag, SubscriptionProbe()) }
    #expect(limitedDemand == .max(1))
    _ = state.request(.unlimited)
    let unlimited = state.claimChild()
    let unlimitedDemand = unlimited.flatMap { state.childSubscribed($0.tag, SubscriptionProbe()) }
    #expect(unlimitedDemand == .unlimited)
    let again = limited.flatMap { state.childSubscribed($0.tag, SubscriptionProbe()) }
    #expect(again == nil)  // a second subscription is cancelled
    let delivered = unlimited.map { state.receive(5, from: $0.tag) }
    #expect(delivered == .deliver(unlimited: true))
  }

  @Test func queuedChildValue_topsUpItsChildWhenDelivered() {
    var state = subscribed(SubscriptionProbe())
    let probe = SubscriptionProbe()
    let tag = child(&state, probe)
    let outcome = state.receive(7, from: tag)
    #expect(outcome == .queued)
    let claimed = state.request(.max(2))
    #expect(claimed)
    #expect(drainAll(&state) == ["value 7 topUp"])
    #expect(probe.requested == [.max(1)])
    let direct = state.receive(8, from: tag)
    #expect(direct == .deliver(unlimited: false))
  }

  @Test func staleChild_isIgnored() {
    var state = subscribed(SubscriptionProbe())
    let old = child(&state, SubscriptionProbe())
    _ = state.childFinished(old, maxPublishers: .unlimited)
    let reused = child(&state, SubscriptionProbe())
    #expect(reused.slot == old.slot)
    #expect(reused.generation != old.generation)
    _ = state.request(.max(1))
    let value = state.receive(1, from: old)
    #expect(value == .ignored)
    let subscribedAgain = state.childSubscribed(old, SubscriptionProbe())
    #expect(subscribedAgain == nil)
    let failed = state.fail(TestError(), from: old)
    #expect(failed == nil)
    #expect(state.isActive)
  }

  @Test func childFinished_freesItsSlot_andAsksForOneMoreWhenLimited() {
    let upstream = SubscriptionProbe()
    var state = subscribed(upstream)
    let probe = SubscriptionProbe()
    let limited = child(&state, probe)
    let finished = state.childFinished(limited, maxPublishers: .max(2))
    #expect(probe.isSame(as: finished.released))
    #expect(upstream.isSame(as: finished.requestOneMore))
    #expect(finished.transform == nil)
    #expect(!finished.claimed)
    let unlimited = child(&state, SubscriptionProbe())
    let other = state.childFinished(unlimited, maxPublishers: .unlimited)
    #expect(other.requestOneMore == nil)
    #expect(state.children.live == 0)
  }

  @Test func freedSlots_areReusedLastFreedFirst_beforeTheTableGrows() {
    var state = subscribed(SubscriptionProbe())
    let first = child(&state, SubscriptionProbe())
    let second = child(&state, SubscriptionProbe())
    let third = child(&state, SubscriptionProbe())
    #expect([first.slot, second.slot, third.slot] == [0, 1, 2])
    _ = state.childFinished(first, maxPublishers: .unlimited)
    _ = state.childFinished(third, maxPublishers: .unlimited)
    let reusedThird = child(&state, SubscriptionProbe())
    let reusedFirst = child(&state, SubscriptionProbe())
    let grown = child(&state, SubscriptionProbe())
    #expect([reusedThird.slot, reusedFirst.slot, grown.slot] == [2, 0, 3])
    #expect(state.children.count == 4)
    #expect(state.children.live == 4)
    let stale = state.childSubscribed(third, SubscriptionProbe())
    #expect(stale == nil)  // the slot's new occupant has another generation
  }

  @Test func childFinishedBeforeSubscribing_releasesNoSubscription_andFreesItsSlot() {
    let upstream = SubscriptionProbe()
    var state = subscribed(upstream)
    let tag = state.claimChild()?.tag ?? .just
    let finished = state.childFinished(tag, maxPublishers: .max(1))
    #expect(finished.released is NoChildSubscription)
    #expect(upstream.isSame(as: finished.requestOneMore))
    #expect(state.children.live == 0)
    let probe = SubscriptionProbe()
    let next = child(&state, probe)
    #expect(next.slot == tag.slot)
    let cancelled = state.cancel()
    #expect(cancelled?.cancel.count == 2)  // the new child's and the upstream's, nothing stale
    #expect(cancelled?.cancel.first.map { probe.isSame(as: $0) } == true)
  }

  @Test func upstreamFinished_waitsForTheLastChild_thenFinishes() {
    let upstream = SubscriptionProbe()
    var state = subscribed(upstream)
    let tag = child(&state, SubscriptionProbe())
    let upstreamDone = state.upstreamFinished()
    #expect(upstream.isSame(as: upstreamDone.released))
    #expect(!upstreamDone.claimed)
    #expect(state.isActive)
    let childDone = state.childFinished(tag, maxPublishers: .max(1))
    #expect(childDone.requestOneMore == nil)  // the upstream is gone
    #expect(childDone.transform != nil)
    #expect(childDone.claimed)
    #expect(!state.isActive)
    #expect(drainAll(&state) == ["finished dropped []"])
    let cancelled = state.cancel()
    #expect(cancelled == nil)  // terminal
  }

  @Test func childFinishedQuietly_freesTheSlot_butLeavesTheLastChildOfAFinishedUpstream() {
    let upstream = SubscriptionProbe()
    var state = subscribed(upstream)
    let firstProbe = SubscriptionProbe()
    let first = child(&state, firstProbe)
    let last = child(&state, SubscriptionProbe())
    _ = state.upstreamFinished()
    var quiet = false
    let released = state.childFinishedQuietly(first, quiet: &quiet)
    #expect(quiet)
    #expect(firstProbe.isSame(as: released))
    #expect(state.children.live == 1)
    quiet = false
    let stale = state.childFinishedQuietly(first, quiet: &quiet)
    #expect(quiet)  // stale: nothing more to do
    #expect(stale is NoChildSubscription)
    quiet = false
    let untouched = state.childFinishedQuietly(last, quiet: &quiet)
    #expect(!quiet)  // the last child: `.finished` is due, left to `childFinished`
    #expect(untouched is NoChildSubscription)
    #expect(state.children.live == 1)
    let finished = state.childFinished(last, maxPublishers: .unlimited)
    #expect(finished.claimed)
    #expect(drainAll(&state) == ["finished dropped []"])
  }

  @Test func finished_goesAfterTheQueuedValues() {
    var state = subscribed(SubscriptionProbe())
    let tag = child(&state, SubscriptionProbe())
    _ = state.receive(5, from: tag)
    _ = state.upstreamFinished()
    let finished = state.childFinished(tag, maxPublishers: .unlimited)
    #expect(!finished.claimed)  // the value waits for demand
    let claimed = state.request(.max(1))
    #expect(claimed)
    #expect(drainAll(&state) == ["value 5", "finished dropped []"])
  }

  @Test func childFailure_goesAfterTheDemandedValues_dropsTheRest_cancelsTheOtherChildren() {
    let upstream = SubscriptionProbe()
    var state = subscribed(upstream)
    let first = SubscriptionProbe()
    let second = SubscriptionProbe()
    let a = child(&state, first)
    let b = child(&state, second)
    _ = state.request(.max(1))
    let delivering = state.receive(1, from: a)
    #expect(delivering == .deliver(unlimited: false))  // the last demand
    _ = state.receive(2, from: a)
    _ = state.receive(3, from: b)
    let failed = state.fail(TestError(code: 9), from: b)
    #expect(failed?.claimed == true)  // deliverable: a failure doesn't wait for demand
    #expect(second.isSame(as: failed?.released))
    #expect(failed?.cancel.count == 1)
    #expect(failed?.cancel.contains { first.isSame(as: $0) } == true)
    #expect(upstream.isSame(as: failed?.upstreamLetGo))  // as Combine: not cancelled
    #expect(failed?.transform != nil)
    #expect(state.children.count == 0)
    _ = state.request(.max(1))  // what the delivered value's `receive` returned
    #expect(drainAll(&state) == ["value 2", "failure 9 dropped [3]"])
    #expect(first.requested.isEmpty)  // no top-up once failing
  }

  @Test func upstreamFailure_releasesTheUpstream_cancelsTheChildren() {
    let upstream = SubscriptionProbe()
    var state = subscribed(upstream)
    let probe = SubscriptionProbe()
    _ = child(&state, probe)
    _ = state.receive(4, from: .just)  // no demand: queued
    let failed = state.fail(TestError(code: 1), from: nil)
    #expect(upstream.isSame(as: failed?.released))
    #expect(failed?.cancel.count == 1)
    #expect(failed?.cancel.contains { probe.isSame(as: $0) } == true)
    #expect(failed?.claimed == true)  // a failure doesn't wait for demand
    #expect(drainAll(&state) == ["failure 1 dropped [4]"])
  }

  @Test func failureAfterTheUpstreamFinished_isIgnored() {
    var state = subscribed(SubscriptionProbe())
    _ = state.receive(1, from: .just)  // no demand: queued
    let finished = state.upstreamFinished()
    #expect(!finished.claimed)
    let failed = state.fail(TestError(), from: nil)
    #expect(failed == nil)
    _ = state.request(.max(1))
    #expect(drainAll(&state) == ["value 1", "finished dropped []"])
  }

  @Test func failureAfterTheUpstreamFinished_whileAChildRuns_isIgnored() {
    var state = subscribed(SubscriptionProbe())
    let probe = SubscriptionProbe()
    let tag = child(&state, probe)
    _ = state.upstreamFinished()
    let failed = state.fail(TestError(), from: nil)
    #expect(failed == nil)
    #expect(!probe.cancelled)
    _ = state.request(.max(1))
    let delivered = state.receive(3, from: tag)
    #expect(delivered == .deliver(unlimited: false))
    let last = state.childFinished(tag, maxPublishers: .unlimited)
    #expect(last.claimed)
    #expect(drainAll(&state) == ["finished dropped []"])
  }

  @Test func cancel_handsOutEverything_laterEventsAreIgnored() {
    let upstream = SubscriptionProbe()
    var state = subscribed(upstream)
    let probe = SubscriptionProbe()
    let tag = child(&state, probe)
    _ = state.receive(1, from: tag)
    let cancelled = state.cancel()
    #expect(cancelled?.cancel.count == 2)
    #expect(cancelled?.cancel.contains { upstream.isSame(as: $0) } == true)
    #expect(cancelled?.cancel.contains { probe.isSame(as: $0) } == true)
    #expect(cancelled?.transform != nil)
    #expect(cancelled.map { Array($0.remains?.values.map(\.value) ?? []) } == [1])
    #expect(state.children.count == 0)
    let again = state.cancel()
    #expect(again == nil)
    let requested = state.request(.max(1))
    #expect(!requested)
    let value = state.receive(2, from: .just)
    #expect(value == .ignored)
    let claim = state.claimChild()
    #expect(claim == nil)
    let accepted = state.receive(subscription: SubscriptionProbe())
    #expect(!accepted)
    #expect(state.transformForValue == nil)
  }

  @Test func cancelWhileFailing_handsOutThePendingFailure_andTheDrainEnds() {
    var state = subscribed(SubscriptionProbe())
    _ = state.request(.max(1))
    let delivering = state.receive(1, from: .just)
    #expect(delivering == .deliver(unlimited: false))
    _ = state.receive(2, from: .just)
    _ = state.fail(TestError(code: 3), from: nil)
    let cancelled = state.cancel()
    #expect(cancelled?.remains?.completion.map(name) == "failure 3")
    #expect(cancelled?.remains?.values.count == 1)
    let delivers = state.request(.max(1))
    #expect(!delivers)  // cancelled: nothing more goes down
    #expect(drainAll(&state).isEmpty)
  }
}
