import StreamCore
import Testing

@testable import SignalOperators

private struct Boom: Error, Equatable {}

private typealias State = MergeState<Int, Boom>
private typealias Probe = SubscriptionProbe

/// Runs `state`'s drain as the thread holding the claim would: performs the requests on the
/// probes, answers each value with `more`, and logs each step.
private func drainAll(_ state: inout State, more: Subscribers.Demand = .none) -> [String] {
  var log: [String] = []
  while true {
    switch state.nextStep() {
    case .value(let value, let index):
      log.append("\(value) from \(index)")
      _ = state.delivered(from: index, more: more, canGiveBack: false)
    case .completion(.finished, let dropped):
      log.append("finished, dropped \(Array(dropped.map(\.value)))")
      return log
    case .completion(.failure, let dropped):
      log.append("failure, dropped \(Array(dropped.map(\.value)))")
      return log
    case .request(let subscription, let demand):
      subscription.request(demand)
    case .release:
      log.append("release")
      return log
    case .stop(let reopen):
      if reopen { log.append("open") }
      return log
    }
  }
}

/// A state with `probes.count` upstreams, each subscribed.
private func subscribed(_ probes: [Probe]) -> State {
  var state = State(count: probes.count)
  for (index, probe) in probes.enumerated() {
    _ = state.subscribed(probe, at: index)
  }
  return state
}

@Suite(.timeLimit(.minutes(5))) struct MergeStateTests {
  // MARK: Subscriptions and demand

  @Test func subscriptionWithoutDemand_keptIdle_askedForOneOnceDemandArrives() {
    let probe = Probe()
    var state = State(count: 1)
    let result1 = state.subscribed(probe, at: 0)
    #expect(result1 == .keep)
    #expect(state.slots == [.idle])
    let result2 = state.request(.max(2))
    #expect(result2)
    let result3 = drainAll(&state).isEmpty
    #expect(result3)
    #expect(probe.requested == [.max(1)])
    #expect(state.slots == [.asked(.max(1))])
  }

  @Test func subscriptionWithLimitedDemand_requestsOne() {
    var state = State(count: 2)
    _ = state.request(.max(5))
    let result4 = state.subscribed(Probe(), at: 0)
    #expect(result4 == .request(.max(1)))
    let result5 = state.subscribed(Probe(), at: 1)
    #expect(result5 == .request(.max(1)))
    #expect(state.slots == [.asked(.max(1)), .asked(.max(1))])
  }

  @Test func subscriptionWithUnlimitedDemand_requestsUnlimited() {
    var state = State(count: 1)
    _ = state.request(.unlimited)
    let result6 = state.subscribed(Probe(), at: 0)
    #expect(result6 == .request(.unlimited))
    #expect(state.slots == [.asked(.unlimited)])
    #expect(state.opensFastPath)
  }

  @Test func secondSubscriptionForASlot_isCancelled_firstKept() {
    let first = Probe()
    var state = State(count: 1)
    _ = state.subscribed(first, at: 0)
    let result7 = state.subscribed(Probe(), at: 0)
    #expect(result7 == .cancel)
    #expect(first.isSame(as: state.subscriptions[0]))
  }

  @Test func demandBecomesUnlimited_eachUpstreamAskedForUnlimitedOnce_thenTheFastPathOpens() {
    let probes = [Probe(), Probe(), Probe()]
    var state = subscribed(probes)
    _ = state.request(.unlimited)
    let result8 = drainAll(&state)
    #expect(result8 == ["open"])
    #expect(probes.map(\.requested) == [[.unlimited], [.unlimited], [.unlimited]])
    #expect(state.slots == Array(repeating: .asked(.unlimited), count: 3))
    _ = state.request(.max(1))
    let result9 = drainAll(&state)
    #expect(result9 == ["open"])
    #expect(probes[0].requested.count == 1)  // not asked twice
  }

  // MARK: Values

  @Test func valueWithDemand_nobodyDelivering_deliveredByTheCaller() {
    var state = State(count: 1)
    _ = state.request(.max(2))
    _ = state.subscribed(Probe(), at: 0)
    let result10 = state.receive(7, from: 0) { true }
    #expect(result10 == .deliver)
    #expect(state.demand == .max(1))
    #expect(state.queue.isEmpty)
    #expect(state.slots == [.waiting])
  }

  @Test func valueWithDemand_whileAnotherThreadDelivers_queuedForIt() {
    var state = State(count: 1)
    _ = state.request(.max(2))
    _ = state.subscribed(Probe(), at: 0)
    let result11 = state.receive(7, from: 0) { false }
    #expect(result11 == .queued)
    #expect(state.demand == .max(2))
    let result12 = drainAll(&state)
    #expect(result12 == ["7 from 0"])
    #expect(state.demand == .max(1))
  }

  @Test func valueWithoutDemand_queuedWithoutTryingTheClaim_deliveredOnceRequested() {
    var state = subscribed([Probe(), Probe()])
    _ = state.request(.max(1))
    let asked = drainAll(&state)
    #expect(asked.isEmpty)  // asks both upstreams for one
    let result13 = state.receive(1, from: 0) { true }
    #expect(result13 == .deliver)
    #expect(state.demand == .none)
    var tried = false
    let second = state.receive(2, from: 1) {
      tried = true
      return true
    }
    #expect(second == .queued)
    #expect(!tried)
    let result14 = drainAll(&state).isEmpty
    #expect(result14)
    _ = state.request(.max(1))
    let result15 = drainAll(&state)
    #expect(result15 == ["2 from 1"])
  }

  @Test func valueBeyondWhatTheUpstreamWasAskedFor_isDropped() {
    var state = State(count: 1)
    _ = state.request(.max(3))
    _ = state.subscribed(Probe(), at: 0)
    let result16 = state.receive(1, from: 0) { false }
    #expect(result16 == .queued)
    let result17 = state.receive(2, from: 0) { false }
    #expect(result17 == .dropped)
    #expect(state.queue.count == 1)
  }

  @Test func valueBeforeSubscription_isDropped() {
    var state = State(count: 1)
    _ = state.request(.unlimited)
    let result18 = state.receive(1, from: 0) { true }
    #expect(result18 == .dropped)
  }

  @Test func valueDelivered_withDemandLeft_upstreamGivenOneBackThroughItsReturn() {
    var state = State(count: 1)
    _ = state.request(.max(3))
    _ = state.subscribed(Probe(), at: 0)
    _ = state.receive(1, from: 0) { true }
    let result19 = state.delivered(from: 0, more: .none, canGiveBack: true)
    #expect(result19)
    #expect(state.slots == [.asked(.max(1))])
  }

  @Test func valueDelivered_notTheCallersOwn_upstreamAskedByTheDrain() {
    let probe = Probe()
    var state = State(count: 1)
    _ = state.request(.max(3))
    _ = state.subscribed(probe, at: 0)
    _ = state.receive(1, from: 0) { false }
    let result20 = drainAll(&state)
    #expect(result20 == ["1 from 0"])
    #expect(probe.requested == [.max(1)])
    #expect(state.slots == [.asked(.max(1))])
  }

  @Test func demandReturnedByTheSubscriber_isAdded() {
    var state = State(count: 1)
    _ = state.request(.max(1))
    _ = state.subscribed(Probe(), at: 0)
    _ = state.receive(1, from: 0) { true }
    #expect(state.demand == .none)
    let result21 = state.delivered(from: 0, more: .max(2), canGiveBack: true)
    #expect(result21)
    #expect(state.demand == .max(2))
  }

  @Test func unlimitedUpstream_valuesQueuedWhileAnotherDelivers_allDelivered() {
    var state = State(count: 1)
    _ = state.request(.unlimited)
    _ = state.subscribed(Probe(), at: 0)
    for value in 1...3 {
      let result22 = state.receive(value, from: 0) { false }
      #expect(result22 == .queued)
    }
    #expect(!state.opensFastPath)
    let result23 = drainAll(&state)
    #expect(result23 == ["1 from 0", "2 from 0", "3 from 0", "open"])
  }

  // MARK: Completion

  @Test func finish_onlyAfterEveryUpstreamFinished_ownSubscriptionReleasedNotCancelled() {
    let probes = [Probe(), Probe()]
    var state = subscribed(probes)
    let first = state.complete(.finished, at: 0)
    #expect(!first.wakesOwner)
    #expect(probes[0].isSame(as: first.released))
    #expect(first.cancels.isEmpty)
    #expect(state.isActive)
    let second = state.complete(.finished, at: 1)
    #expect(second.wakesOwner)
    #expect(!state.isActive)
    let result24 = drainAll(&state)
    #expect(result24 == ["finished, dropped []"])
    #expect(state.isTerminal)
    #expect(!probes[0].cancelled && !probes[1].cancelled)
  }

  @Test func finish_withAValueWaitingForDemand_completesAfterIt() {
    var state = subscribed([Probe(), Probe()])
    _ = state.request(.max(1))
    _ = drainAll(&state)
    _ = state.receive(1, from: 0) { true }
    _ = state.delivered(from: 0, more: .none, canGiveBack: true)
    let result25 = state.receive(2, from: 1) { true }
    #expect(result25 == .queued)
    _ = state.complete(.finished, at: 0)
    let result26 = state.complete(.finished, at: 1)
    #expect(result26.wakesOwner)
    let waiting = drainAll(&state)
    #expect(waiting.isEmpty)  // `.finished` waits behind the value
    _ = state.request(.max(1))
    let result27 = drainAll(&state)
    #expect(result27 == ["2 from 1", "finished, dropped []"])
  }

  @Test func finish_withAValueQueuedForTheDeliveringThread_completesAfterIt() {
    var state = State(count: 1)
    _ = state.request(.max(1))
    _ = state.subscribed(Probe(), at: 0)
    _ = state.receive(1, from: 0) { false }
    _ = state.complete(.finished, at: 0)
    let result28 = drainAll(&state)
    #expect(result28 == ["1 from 0", "finished, dropped []"])
  }

  @Test func failure_deliversQueuedValuesTheDemandCovers_dropsTheRest_cancelsTheOthers() {
    let probes = [Probe(), Probe(), Probe()]
    var state = subscribed(probes)
    _ = state.request(.max(1))
    let asked = drainAll(&state)
    #expect(asked.isEmpty)  // asks every idle upstream for one
    for index in 0..<3 {
      let result29 = state.receive(index + 1, from: index) { false }
      #expect(result29 == .queued)
    }
    let failed = state.complete(.failure(Boom()), at: 2)
    #expect(failed.wakesOwner)
    #expect(probes[2].isSame(as: failed.released))
    #expect(failed.cancels.count == 2)
    #expect(probes[0].isSame(as: failed.cancels.first))
    #expect(probes[1].isSame(as: failed.cancels.last))
    #expect(state.slots == [.done, .done, .done])
    let result30 = drainAll(&state)
    #expect(result30 == ["1 from 0", "failure, dropped [2, 3]"])
    #expect(state.isTerminal)
  }

  @Test func failure_valuesAfterItAndOtherCompletions_ignored() {
    var state = subscribed([Probe(), Probe()])
    _ = state.request(.unlimited)
    _ = state.complete(.failure(Boom()), at: 0)
    let result31 = state.receive(1, from: 1) { true }
    #expect(result31 == .dropped)
    let later = state.complete(.finished, at: 1)
    #expect(!later.wakesOwner && later.released == nil)
    #expect(!state.opensFastPath)
  }

  @Test func noUpstreams_finishesAtOnce() {
    var state = State(count: 0)
    #expect(!state.isActive)
    let result32 = drainAll(&state)
    #expect(result32 == ["finished, dropped []"])
  }

  // MARK: Cancel

  @Test func cancel_releasesSubscriptionsAndQueuedValues_thenNothingIsHeld() {
    let probes = [Probe(), Probe()]
    var state = subscribed(probes)
    _ = state.request(.max(1))
    _ = drainAll(&state)
    _ = state.receive(1, from: 0) { false }
    let cancelled = state.cancel()
    #expect(cancelled?.cancels.count == 2)
    #expect(probes[0].isSame(as: cancelled?.cancels.first))
    #expect(probes[1].isSame(as: cancelled?.cancels.last))
    #expect(cancelled.map { Array($0.dropped.map(\.value)) } == [1])
    #expect(cancelled?.failure == nil)
    #expect(state.isTerminal)
    #expect(state.subscriptions.allSatisfy { $0 == nil })
    #expect(state.queue.isEmpty)
    let result33 = state.cancel()
    #expect(result33 == nil)
    let result34 = drainAll(&state)
    #expect(result34 == ["release"])
    let result35 = state.request(.max(1))
    #expect(!result35)
  }

  @Test func cancel_whileFailing_handsOutTheFailureAndQueuedValues() {
    var state = subscribed([Probe(), Probe()])
    _ = state.request(.max(1))
    _ = drainAll(&state)
    _ = state.receive(1, from: 0) { false }
    _ = state.complete(.failure(Boom()), at: 1)
    let cancelled = state.cancel()
    #expect(cancelled?.failure == Boom())
    #expect(cancelled.map { Array($0.dropped.map(\.value)) } == [1])
    #expect(cancelled?.cancels.isEmpty == true)  // taken by the failure already
  }

  @Test func cancel_afterCompletion_doesNothing() {
    var state = subscribed([Probe()])
    _ = state.complete(.finished, at: 0)
    _ = drainAll(&state)
    let result36 = state.cancel()
    #expect(result36 == nil)
  }

  @Test func subscriptionAfterCancel_isCancelled() {
    var state = State(count: 2)
    _ = state.subscribed(Probe(), at: 0)
    _ = state.cancel()
    let result37 = state.subscribed(Probe(), at: 1)
    #expect(result37 == .cancel)
  }
}

@Suite(.timeLimit(.minutes(5))) struct MergeClaimTests {
  @Test func startsClaimed_byTheSubscribingThread() {
    let claim = MergeClaim()
    let result38 = claim.claimFast()
    #expect(!result38)
    let result39 = claim.claimIfFree()
    #expect(!result39)
    let result40 = claim.signal()
    #expect(!result40)
  }

  @Test func releasedReopening_fastPathClaimsAndReleases() {
    let claim = MergeClaim()
    claim.release(reopening: true)
    let result41 = claim.claimFast()
    #expect(result41)
    let result42 = claim.claimFast()
    #expect(!result42)
    let result43 = claim.releaseFast()
    #expect(result43)
    let result44 = claim.claimFast()
    #expect(result44)
  }

  @Test func signalDuringAFastDelivery_closesThePath_theDelivererDrains() {
    let claim = MergeClaim()
    claim.release(reopening: true)
    let result45 = claim.claimFast()
    #expect(result45)
    let signalled = claim.signal()
    #expect(!signalled)  // the fast deliverer owns delivery
    let released = claim.releaseFast()
    #expect(!released)  // so it drains, still holding the claim
    claim.release(reopening: false)
    let result46 = claim.claimFast()
    #expect(!result46)
    let result47 = claim.signal()
    #expect(result47)
  }

  @Test func claimIfFree_takesAFreeClaimAndClosesThePath() {
    let claim = MergeClaim()
    claim.release(reopening: true)
    let result48 = claim.claimIfFree()
    #expect(result48)
    let result49 = claim.claimFast()
    #expect(!result49)
    let result50 = claim.claimIfFree()
    #expect(!result50)
    let result51 = claim.signal()
    #expect(!result51)
  }

  // MARK: flatMap's use of the word (beside its drain flag)

  @Test func flatMap_fastDeliveryLetsGo_theNextValueTakesItOver() {
    let claim = MergeClaim(claimed: false)
    let free = claim.claimFast()
    #expect(!free)  // 0: the drain flag says who delivers
    claim.beginFast()
    let letGoWhileDelivering = claim.isLetGo
    #expect(!letGoWhileDelivering)
    let released = claim.releaseFast()
    #expect(released)
    let letGo = claim.isLetGo
    #expect(letGo)
    let taken = claim.claimFast()  // the next value, under the lock
    #expect(taken)
    let letGoAfter = claim.isLetGo
    #expect(!letGoAfter)
  }

  @Test func flatMap_workDuringAFastDelivery_makesTheDelivererDrain() {
    let claim = MergeClaim(claimed: false)
    claim.beginFast()
    let woken = claim.wake()
    #expect(!woken)  // the deliverer drains, not the caller
    let again = claim.wake()
    #expect(!again)
    let released = claim.releaseFast()
    #expect(!released)
    claim.release(reopening: false)
    let idle = claim.wake()
    #expect(!idle)  // 0: a drain through the lock finds the work itself
  }

  @Test func flatMap_workAfterTheDeliveryLetGo_theCallerDrains() {
    let claim = MergeClaim(claimed: false)
    claim.beginFast()
    let released = claim.releaseFast()
    #expect(released)
    let woken = claim.wake()
    #expect(woken)  // the caller took over the drain flag
    let taken = claim.claimFast()
    #expect(!taken)  // nobody else takes it meanwhile
    let again = claim.wake()
    #expect(!again)
  }

  @Test func flatMap_cancelDuringAFastDelivery_leavesTheDownstreamToIt() {
    let claim = MergeClaim(claimed: false)
    let idle = claim.interruptFast()
    #expect(!idle)
    claim.beginFast()
    let delivering = claim.interruptFast()
    #expect(delivering)
    let still = claim.interruptFast()
    #expect(still)  // told already, not yet gone
    let released = claim.releaseFast()
    #expect(!released)  // so it drains, which lets go of the downstream
    claim.release(reopening: false)
    let after = claim.interruptFast()
    #expect(!after)
    claim.beginFast()
    _ = claim.releaseFast()
    let letGo = claim.interruptFast()
    #expect(!letGo)  // let go: the cancel releases the downstream itself
  }
}
