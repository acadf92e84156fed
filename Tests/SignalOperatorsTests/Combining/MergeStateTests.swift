import StreamCore
import Testing

@testable import SignalOperators

private struct Boom: Error, Equatable {}

private typealias State = MergeState<Int, Boom>
private typealias Probe = SubscriptionProbe

/// Runs `state`'s drain as the thread inside the gate would: answers each value with `more`,
/// and logs each step.
private func drainAll(_ state: inout State, more: Subscribers.Demand = .none) -> [String] {
  var log: [String] = []
  while true {
    switch state.nextStep() {
    case .value(let value):
      log.append("\(value)")
      state.drained(more: more)
    case .completion(.finished, let dropped):
      log.append("finished, dropped \(Array(dropped.map(\.value)))")
      return log
    case .completion(.failure, let dropped):
      log.append("failure, dropped \(Array(dropped.map(\.value)))")
      return log
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

/// Makes a request from outside a delivery and forwards it as the storage does: returns whether
/// the drain must run first.
@discardableResult
private func requestFromOutside(_ state: inout State, _ demand: Subscribers.Demand) -> Bool {
  guard case .forward(var forward, let drains) = state.request(demand) else {
    return false
  }
  while let upstream = state.nextUpstream(for: &forward) { upstream.request(demand) }
  return drains
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

  @Test func subscriptionWithoutDemand_kept_forwardedTheNextRequestWhole() {
    let probe = Probe()
    var state = State(count: 1)
    let subscribed = state.subscribed(probe, at: 0)
    #expect(subscribed == .keep)
    #expect(state.slots == [.subscribed(after: 0)])
    let drains = requestFromOutside(&state, .max(2))
    #expect(!drains)
    #expect(probe.requested == [.max(2)])
  }

  @Test func subscriptionAfterRequests_askedForTheDemandLeft_notForwardedThoseRequests() {
    let probes = [Probe(), Probe()]
    var state = State(count: 2)
    requestFromOutside(&state, .max(3))
    requestFromOutside(&state, .max(2))
    #expect(probes.allSatisfy { $0.requested.isEmpty })  // nobody subscribed yet
    let first = state.subscribed(probes[0], at: 0)
    #expect(first == .request(.max(5)))
    #expect(state.slots == [.subscribed(after: 2), .awaitingSubscription])
    requestFromOutside(&state, .max(1))
    #expect(probes[0].requested == [.max(1)])  // the request made after it subscribed
    let second = state.subscribed(probes[1], at: 1)
    #expect(second == .request(.max(6)))
  }

  @Test func subscriptionWithUnlimitedDemand_requestsUnlimited() {
    var state = State(count: 1)
    requestFromOutside(&state, .unlimited)
    let subscribed = state.subscribed(Probe(), at: 0)
    #expect(subscribed == .request(.unlimited))
    #expect(!state.hasDelivery)
  }

  @Test func secondSubscriptionForASlot_isCancelled_firstKept() {
    let first = Probe()
    var state = State(count: 1)
    _ = state.subscribed(first, at: 0)
    let second = state.subscribed(Probe(), at: 0)
    #expect(second == .cancel)
    #expect(first.isSame(as: state.subscriptions[0]))
  }

  @Test func request_forwardedUnchangedToEveryUpstreamNotDone_inOrder() {
    let probes = [Probe(), Probe(), Probe()]
    var state = subscribed(probes)
    _ = state.complete(.finished, at: 1)
    requestFromOutside(&state, .max(3))
    requestFromOutside(&state, .max(2))
    #expect(probes.map(\.requested) == [[.max(3), .max(2)], [], [.max(3), .max(2)]])
    #expect(state.demand == .max(5))
  }

  @Test func demandUnlimited_forwardedOnce_laterRequestsGoNowhere() {
    let probes = [Probe(), Probe()]
    var state = subscribed(probes)
    requestFromOutside(&state, .max(1))
    requestFromOutside(&state, .unlimited)
    let later = state.request(.max(4))
    #expect(later == .ignored)
    #expect(probes.map(\.requested) == [[.max(1), .unlimited], [.max(1), .unlimited]])
    let steps = drainAll(&state)
    #expect(steps.isEmpty)
  }

  @Test func valueSentFromInsideAForwardedRequest_queuedEvenWithDemand() {
    var state = subscribed([Probe(), Probe()])
    requestFromOutside(&state, .max(2))
    let action = state.queue(1, from: 1)
    #expect(action == .queued)
    #expect(state.demand == .max(2))
    #expect(state.hasDelivery)  // for the outermost pass, once the subscriber returns
    let delivered = drainAll(&state)
    #expect(delivered == ["1"])
    _ = state.complete(.finished, at: 0)
    let dropped = state.queue(2, from: 0)
    #expect(dropped == .dropped)
  }

  // MARK: Values

  @Test func valueWithDemand_nobodyDelivering_deliveredByTheCaller() {
    var state = State(count: 1)
    requestFromOutside(&state, .max(2))
    _ = state.subscribed(Probe(), at: 0)
    let action = state.receive(7, from: 0)
    #expect(action == .deliver(unlimited: false))
    #expect(state.demand == .max(1))
    #expect(state.queue.isEmpty)
  }

  @Test func valueWithDemand_behindAQueuedValue_queuedAfterIt() {
    var state = subscribed([Probe(), Probe()])
    requestFromOutside(&state, .max(2))
    let first = receiveBeforeDemand(&state, 7, from: 0)
    #expect(first == .queued)
    let behind = state.receive(8, from: 1)
    #expect(behind == .queued)
    #expect(state.demand == .max(2))
    #expect(state.hasDelivery)
    let delivered = drainAll(&state)
    #expect(delivered == ["7", "8"])
    #expect(state.demand == .none)
  }

  @Test func valuesBeyondDemand_queuedFirstInFirstOut_deliveredAsDemandArrives() {
    var state = subscribed([Probe(), Probe()])
    requestFromOutside(&state, .max(1))
    let first = state.receive(1, from: 0)
    #expect(first == .deliver(unlimited: false))
    for (value, index) in [(2, 1), (3, 0), (4, 1)] {
      let action = state.receive(value, from: index)
      #expect(action == .queued)
    }
    #expect(!state.hasDelivery)
    let drains = requestFromOutside(&state, .max(2))
    #expect(drains)
    let delivered = drainAll(&state)
    #expect(delivered == ["2", "3"])  // never more than requested
    requestFromOutside(&state, .max(5))
    let last = drainAll(&state)
    #expect(last == ["4"])
    #expect(state.demand == .max(4))
  }

  @Test func valueBeyondWhatTheUpstreamWasAskedFor_isQueued() {
    var state = State(count: 1)
    requestFromOutside(&state, .max(1))
    _ = state.subscribed(Probe(), at: 0)
    let first = receiveBeforeDemand(&state, 1, from: 0)
    #expect(first == .queued)
    let second = receiveBeforeDemand(&state, 2, from: 0)
    #expect(second == .queued)
    #expect(state.queue.count == 2)
  }

  @Test func valueFromADoneUpstream_isDropped() {
    var state = subscribed([Probe(), Probe()])
    requestFromOutside(&state, .unlimited)
    _ = state.complete(.finished, at: 0)
    let action = state.receive(1, from: 0)
    #expect(action == .dropped)
  }

  @Test func demandReturnedForAValueTheCallerDelivered_addedAndGivenBackToItsUpstream() {
    let probes = [Probe(), Probe()]
    var state = subscribed(probes)
    requestFromOutside(&state, .max(1))
    _ = state.receive(1, from: 0)
    #expect(state.demand == .none)
    let back = state.delivered(more: .max(2))
    #expect(back == .max(2))  // the caller returns it from that upstream's `receive(_:)`
    #expect(state.demand == .max(2))
    let steps = drainAll(&state)
    #expect(steps.isEmpty)
    #expect(probes.map(\.requested) == [[.max(1)], [.max(1)]])  // nobody else asked
  }

  @Test func demandReturnedWithUnlimitedDemandOrAfterCancel_notGivenBack() {
    var unlimited = subscribed([Probe()])
    requestFromOutside(&unlimited, .unlimited)
    let back = unlimited.delivered(more: .max(1))
    #expect(back == .none)
    var cancelled = subscribed([Probe()])
    requestFromOutside(&cancelled, .max(1))
    _ = cancelled.receive(1, from: 0)
    _ = cancelled.cancel()
    let afterCancel = cancelled.delivered(more: .max(1))
    #expect(afterCancel == .none)
  }

  @Test func demandReturnedForADrainedValue_addedToTheSubscribersDemandOnly() {
    let probes = [Probe(), Probe()]
    var state = subscribed(probes)
    requestFromOutside(&state, .max(1))
    _ = receiveBeforeDemand(&state, 1, from: 0)
    _ = receiveBeforeDemand(&state, 2, from: 1)
    _ = receiveBeforeDemand(&state, 3, from: 1)
    let delivered = drainAll(&state, more: .max(1))
    #expect(delivered == ["1", "2", "3"])
    #expect(state.demand == .max(1))
    #expect(probes.map(\.requested) == [[.max(1)], [.max(1)]])
  }

  @Test func unlimitedUpstream_valuesQueuedBeforeDemand_allDelivered() {
    var state = State(count: 1)
    requestFromOutside(&state, .unlimited)
    _ = state.subscribed(Probe(), at: 0)
    for value in 1...3 {
      let action = receiveBeforeDemand(&state, value, from: 0)
      #expect(action == .queued)
    }
    #expect(state.hasDelivery)
    let delivered = drainAll(&state)
    #expect(delivered == ["1", "2", "3"])
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
    requestFromOutside(&state, .max(1))
    _ = state.receive(1, from: 0)
    _ = state.delivered(more: .none)
    let result25 = state.receive(2, from: 1)
    #expect(result25 == .queued)
    _ = state.complete(.finished, at: 0)
    let result26 = state.complete(.finished, at: 1)
    #expect(result26.delivers)
    let waiting = drainAll(&state)
    #expect(waiting.isEmpty)  // `.finished` waits behind the value
    requestFromOutside(&state, .max(1))
    let result27 = drainAll(&state)
    #expect(result27 == ["2", "finished, dropped []"])
  }

  @Test func finish_withAValueQueued_completesAfterIt() {
    var state = State(count: 1)
    requestFromOutside(&state, .max(1))
    _ = state.subscribed(Probe(), at: 0)
    _ = receiveBeforeDemand(&state, 1, from: 0)
    _ = state.complete(.finished, at: 0)
    let result28 = drainAll(&state)
    #expect(result28 == ["1", "finished, dropped []"])
  }

  @Test func failure_deliversQueuedValuesTheDemandCovers_dropsTheRest_cancelsTheOthers() {
    let probes = [Probe(), Probe(), Probe()]
    var state = subscribed(probes)
    requestFromOutside(&state, .max(1))
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
    #expect(result30 == ["1", "failure, dropped [2, 3]"])
    #expect(state.isTerminal)
  }

  @Test func failure_valuesAfterItAndOtherCompletions_ignored() {
    var state = subscribed([Probe(), Probe()])
    requestFromOutside(&state, .unlimited)
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
    requestFromOutside(&state, .max(1))
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
    #expect(result35 == .ignored)
  }

  @Test func cancel_whileFailing_handsOutTheFailureAndQueuedValues() {
    var state = subscribed([Probe(), Probe()])
    requestFromOutside(&state, .max(1))
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
