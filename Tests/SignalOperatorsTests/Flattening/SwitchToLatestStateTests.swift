import StreamCore
import Testing

@testable import SignalOperators

private struct Boom: Error, Equatable {}

/// `"finished"` or `"failure"`.
private func name(_ completion: Subscribers.Completion<Boom>) -> String {
  if case .failure = completion { return "failure" }
  return "finished"
}

private typealias State = SwitchToLatestState<Int, Boom>

/// A subscription that only records what it was asked.
private final class Probe: Subscription, @unchecked Sendable {
  var requested: [Subscribers.Demand] = []
  var cancelled = false
  func request(_ demand: Subscribers.Demand) { requested.append(demand) }
  func cancel() { cancelled = true }
}

/// Performs `action`'s subscription calls, as the subscription does after its lock.
private func perform(_ action: State.Action) {
  action.cancel.cancel()
  if let request = action.request { request.request(action.demand) }
}

/// Drains `state` as the drain owner would, each value returning `perValue`; the log names each
/// step.
private func drainAll(_ state: inout State, perValue: Subscribers.Demand = .none) -> [String] {
  var log: [String] = []
  var more = Subscribers.Demand.none
  while let delivery = state.nextDelivery(adding: more) {
    more = .none
    switch delivery {
    case .topUp(_, let demand, _):
      log.append("topUp \(demand)")
    case .value(let value):
      log.append("value \(value)")
      more = perValue
    case .completion(let completion, let dropped):
      log.append("completion \(name(completion)) dropped \(Array(dropped))")
    }
  }
  return log
}

/// The state with an upstream subscribed and the inner of generation 1 subscribed.
private func subscribed(upstream: Probe, inner: Probe) -> State {
  var state = State()
  perform(state.upstreamSubscribed(upstream))
  let action = state.switchInner()
  #expect(action.subscribe == 1)
  perform(state.innerSubscribed(1, inner))
  return state
}

@Suite(.timeLimit(.minutes(5))) struct SwitchToLatestStateTests {
  @Test func upstreamSubscribed_asksUnlimited_secondIsCancelled() {
    var state = State()
    let first = Probe()
    let second = Probe()
    perform(state.upstreamSubscribed(first))
    perform(state.upstreamSubscribed(second))
    #expect(first.requested == [.unlimited])
    #expect(second.cancelled)
    #expect(!first.cancelled)
  }

  @Test func innerSubscribed_asksForOutstandingDemand() {
    var state = State()
    perform(state.upstreamSubscribed(Probe()))
    _ = state.request(.max(3))
    _ = state.switchInner()
    let inner = Probe()
    perform(state.innerSubscribed(1, inner))
    #expect(inner.requested == [.max(3)])
  }

  @Test func switch_cancelsCurrent_dropsQueued_keepsTheirDemand() {
    let inner = Probe()
    var state = subscribed(upstream: Probe(), inner: inner)
    _ = state.request(.max(2))
    let result1 = state.innerValue(1, 10)
    #expect(result1)  // claims the drain
    let result2 = state.innerValue(1, 11)
    #expect(!result2)  // the drain is already claimed
    let action = state.switchInner()
    perform(action)
    #expect(inner.cancelled)
    #expect(Array(action.released.values) == [10, 11])
    #expect(action.subscribe == 2)
    let next = Probe()
    perform(state.innerSubscribed(2, next))
    #expect(next.requested == [.max(2)])
    let result3 = state.innerValue(1, 12)
    #expect(!result3)  // the replaced inner's value is dropped
    #expect(state.queue.values.isEmpty)
  }

  @Test func innerValue_beyondDemand_isDropped() {
    var state = subscribed(upstream: Probe(), inner: Probe())
    _ = state.request(.max(1))
    let result4 = state.innerValue(1, 1)
    #expect(result4)
    let result5 = state.innerValue(1, 2)
    #expect(!result5)
    #expect(drainAll(&state) == ["value 1"])
  }

  @Test func drain_topsUpTheCurrentInnerWithReturnedDemand() {
    var state = subscribed(upstream: Probe(), inner: Probe())
    _ = state.request(.max(1))
    let result6 = state.innerValue(1, 1)
    #expect(result6)
    #expect(drainAll(&state, perValue: .max(2)) == ["value 1", "topUp max(2)"])
    #expect(state.outstandingDemand == .max(2))
    #expect(!state.queue.drain.isClaimed)
  }

  @Test func finishes_onlyWhenUpstreamAndCurrentInnerFinished() {
    let upstream = Probe()
    var state = subscribed(upstream: upstream, inner: Probe())
    let finished = state.upstreamFinished()
    #expect(finished.released.subscription as? Probe === upstream)
    #expect(!finished.drains)
    let action = state.innerFinished(1)
    #expect(action.drains)
    #expect(drainAll(&state) == ["completion finished dropped []"])
    guard case .ended = state.phase else {
      Issue.record("expected .ended, got \(state.phase)")
      return
    }
  }

  @Test func replacedInnerFinishing_doesNotFinish() {
    var state = subscribed(upstream: Probe(), inner: Probe())
    _ = state.switchInner()
    _ = state.upstreamFinished()
    let result7 = state.innerFinished(1)
    #expect(!result7.drains)
    let result8 = state.innerFinished(2)
    #expect(result8.drains)
  }

  @Test func innerFailure_cancelsUpstream_deliversQueuedValuesFirst() {
    let upstream = Probe()
    let inner = Probe()
    var state = subscribed(upstream: upstream, inner: inner)
    _ = state.request(.max(2))
    let result9 = state.innerValue(1, 1)
    #expect(result9)
    let result10 = state.innerValue(1, 2)
    #expect(!result10)
    let action = state.fail(Boom(), generation: 1)
    perform(action)
    #expect(upstream.cancelled)
    #expect(!inner.cancelled)
    #expect(action.released.subscription as? Probe === inner)
    #expect(!action.drains)  // the drain is still claimed by the first value
    #expect(drainAll(&state) == ["value 1", "value 2", "completion failure dropped []"])
  }

  @Test func replacedInnerFailure_isIgnored() {
    var state = subscribed(upstream: Probe(), inner: Probe())
    _ = state.switchInner()
    let action = state.fail(Boom(), generation: 1)
    #expect(!action.drains)
    guard case .active = state.phase else {
      Issue.record("expected .active, got \(state.phase)")
      return
    }
  }

  @Test func cancel_whileFailing_handsOutValuesAndFailure() {
    let upstream = Probe()
    let inner = Probe()
    var state = subscribed(upstream: upstream, inner: inner)
    _ = state.request(.max(1))
    let result11 = state.innerValue(1, 1)
    #expect(result11)
    _ = state.fail(Boom(), generation: nil)
    let action = state.cancel()
    #expect(Array(action.released.values) == [1])
    #expect(action.released.completion.map(name) == "failure")
    #expect(drainAll(&state) == [])
  }

  @Test func cancel_whileActive_cancelsUpstreamAndInner() {
    let upstream = Probe()
    let inner = Probe()
    var state = subscribed(upstream: upstream, inner: inner)
    perform(state.cancel())
    #expect(upstream.cancelled)
    #expect(inner.cancelled)
    let result12 = state.request(.max(1))
    #expect(result12.request as? Probe === nil)
  }
}
