import StreamCore
import Testing

@testable import SignalOperators

private struct Boom: Error, Equatable {}

private typealias State = MergeState<Int, Boom>
private typealias Probe = SubscriptionProbe

/// Runs `state`'s drain as the thread inside the gate would: performs the requests on the
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
    case .stop:
      return log
    }
  }
}

/// Books a value from upstream `index` as one that arrived before the demand now there: it is
/// queued (or dropped), never handed to the caller.
private func receiveBeforeDemand(
  _ state: inout State,
  _ value: Int,
  from index: Int
)
  -> State.ValueAction
{
  let demand = state.demand
  state.demand = .none
  defer { state.demand = demand }
  return state.receive(value, from: index)
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
    #expect(!state.hasDelivery)
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
    #expect(result8.isEmpty)
    #expect(probes.map(\.requested) == [[.unlimited], [.unlimited], [.unlimited]])
    #expect(state.slots == Array(repeating: .asked(.unlimited), count: 3))
    _ = state.request(.max(1))
    let result9 = drainAll(&state)
    #expect(result9.isEmpty)
    #expect(probes[0].requested.count == 1)  // not asked twice
  }

  // MARK: Values

  @Test func valueWithDemand_nobodyDelivering_deliveredByTheCaller() {
    var state = State(count: 1)
    _ = state.request(.max(2))
    _ = state.subscribed(Probe(), at: 0)
    let result10 = state.receive(7, from: 0)
    #expect(result10 == .deliver(unlimited: false))
    #expect(state.demand == .max(1))
    #expect(state.queue.isEmpty)
    #expect(state.slots == [.waiting])
  }

  @Test func valueWithDemand_behindAQueuedValue_queuedAfterIt() {
    var state = State(count: 2)
    _ = state.request(.max(2))
    _ = state.subscribed(Probe(), at: 0)
    _ = state.subscribed(Probe(), at: 1)
    let result11 = receiveBeforeDemand(&state, 7, from: 0)
    #expect(result11 == .queued)
    let behind = state.receive(8, from: 1)
    #expect(behind == .queued)
    #expect(state.demand == .max(2))
    #expect(state.hasDelivery)
    let result12 = drainAll(&state)
    #expect(result12 == ["7 from 0", "8 from 1"])
    #expect(state.demand == .none)
  }

  @Test func valueWithoutDemand_queued_deliveredOnceRequested() {
    var state = subscribed([Probe(), Probe()])
    _ = state.request(.max(1))
    let asked = drainAll(&state)
    #expect(asked.isEmpty)  // asks both upstreams for one
    let result13 = state.receive(1, from: 0)
    #expect(result13 == .deliver(unlimited: false))
    #expect(state.demand == .none)
    let second = state.receive(2, from: 1)
    #expect(second == .queued)
    #expect(!state.hasDelivery)
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
    let result16 = receiveBeforeDemand(&state, 1, from: 0)
    #expect(result16 == .queued)
    let result17 = receiveBeforeDemand(&state, 2, from: 0)
    #expect(result17 == .dropped)
    #expect(state.queue.count == 1)
  }

  @Test func valueBeforeSubscription_isDropped() {
    var state = State(count: 1)
    _ = state.request(.unlimited)
    let result18 = state.receive(1, from: 0)
    #expect(result18 == .dropped)
  }

  @Test func valueDelivered_withDemandLeft_upstreamGivenOneBackThroughItsReturn() {
    var state = State(count: 1)
    _ = state.request(.max(3))
    _ = state.subscribed(Probe(), at: 0)
    _ = state.receive(1, from: 0)
    let result19 = state.delivered(from: 0, more: .none, canGiveBack: true)
    #expect(result19)
    #expect(state.slots == [.asked(.max(1))])
  }

  @Test func valueDelivered_notTheCallersOwn_upstreamAskedByTheDrain() {
    let probe = Probe()
    var state = State(count: 1)
    _ = state.request(.max(3))
    _ = state.subscribed(probe, at: 0)
    _ = receiveBeforeDemand(&state, 1, from: 0)
    let result20 = drainAll(&state)
    #expect(result20 == ["1 from 0"])
    #expect(probe.requested == [.max(1)])
    #expect(state.slots == [.asked(.max(1))])
  }

  @Test func demandReturnedByTheSubscriber_isAdded() {
    var state = State(count: 1)
    _ = state.request(.max(1))
    _ = state.subscribed(Probe(), at: 0)
    _ = state.receive(1, from: 0)
    #expect(state.demand == .none)
    let result21 = state.delivered(from: 0, more: .max(2), canGiveBack: true)
    #expect(result21)
    #expect(state.demand == .max(2))
  }

  @Test func unlimitedUpstream_valuesQueuedBeforeDemand_allDelivered() {
    var state = State(count: 1)
    _ = state.request(.unlimited)
    _ = state.subscribed(Probe(), at: 0)
    for value in 1...3 {
      let result22 = receiveBeforeDemand(&state, value, from: 0)
      #expect(result22 == .queued)
    }
    #expect(state.hasDelivery)
    let result23 = drainAll(&state)
    #expect(result23 == ["1 from 0", "2 from 0", "3 from 0"])
  }

  // MARK: Completion

  @Test func finish_onlyAfterEveryUpstreamFinished_ownSubscriptionReleasedNotCancelled() {
    let probes = [Probe(), Probe()]
    var state = subscribed(probes)
    let first = state.complete(.finished, at: 0)
    #expect(!first.delivers)
    #expect(probes[0].isSame(as: first.released))
    #expect(first.cancels.isEmpty)
    #expect(state.isActive)
    let second = state.complete(.finished, at: 1)
    #expect(second.delivers)
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
    _ = state.receive(1, from: 0)
    _ = state.delivered(from: 0, more: .none, canGiveBack: true)
    let result25 = state.receive(2, from: 1)
    #expect(result25 == .queued)
    _ = state.complete(.finished, at: 0)
    let result26 = state.complete(.finished, at: 1)
    #expect(result26.delivers)
    let waiting = drainAll(&state)
    #expect(waiting.isEmpty)  // `.finished` waits behind the value
    _ = state.request(.max(1))
    let result27 = drainAll(&state)
    #expect(result27 == ["2 from 1", "finished, dropped []"])
  }

  @Test func finish_withAValueQueued_completesAfterIt() {
    var state = State(count: 1)
    _ = state.request(.max(1))
    _ = state.subscribed(Probe(), at: 0)
    _ = receiveBeforeDemand(&state, 1, from: 0)
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
      let result29 = receiveBeforeDemand(&state, index + 1, from: index)
      #expect(result29 == .queued)
    }
    let failed = state.complete(.failure(Boom()), at: 2)
    #expect(failed.delivers)
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
    let result31 = state.receive(1, from: 1)
    #expect(result31 == .dropped)
    let later = state.complete(.finished, at: 1)
    #expect(!later.delivers && later.released == nil)
    #expect(state.hasDelivery)  // the failure, for the drain
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
    _ = receiveBeforeDemand(&state, 1, from: 0)
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
    #expect(result34.isEmpty)
    let result35 = state.request(.max(1))
    #expect(!result35)
  }

  @Test func cancel_whileFailing_handsOutTheFailureAndQueuedValues() {
    var state = subscribed([Probe(), Probe()])
    _ = state.request(.max(1))
    _ = drainAll(&state)
    _ = receiveBeforeDemand(&state, 1, from: 0)
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
