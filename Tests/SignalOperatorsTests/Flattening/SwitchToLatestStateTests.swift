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

/// Hands out the completion as the thread inside the gate would; the log names it.
private func drainAll(_ state: inout State) -> [String] {
  guard let completion = state.nextCompletion() else { return [] }
  return ["completion \(name(completion))"]
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

  @Test func switch_cancelsCurrent_newInnerAskedForTheDemandLeft() {
    let inner = Probe()
    var state = subscribed(upstream: Probe(), inner: inner)
    _ = state.request(.max(3))
    let first = state.innerValue(1)
    #expect(first)  // delivered by the caller: one demand taken
    let action = state.switchInner()
    perform(action)
    #expect(inner.cancelled)
    #expect(action.subscribe == 2)
    let next = Probe()
    perform(state.innerSubscribed(2, next))
    #expect(next.requested == [.max(2)])
    let stale = state.innerValue(1)
    #expect(!stale)  // the replaced inner's value is dropped
  }

  @Test func innerValue_withinDemand_takesOne_beyondIt_isRefused() {
    var state = subscribed(upstream: Probe(), inner: Probe())
    _ = state.request(.max(1))
    #expect(!state.isBeyondDemand(1))
    let first = state.innerValue(1)
    #expect(first)
    #expect(state.isBeyondDemand(1))  // the caller traps, as Combine
    let second = state.innerValue(1)
    #expect(!second)
  }

  @Test func demandReturnedForADeliveredValue_isAdded() {
    var state = subscribed(upstream: Probe(), inner: Probe())
    _ = state.request(.max(1))
    _ = state.innerValue(1)
    state.delivered(adding: .max(2))
    #expect(state.outstandingDemand == .max(2))
  }

  @Test func finishes_onlyWhenUpstreamAndCurrentInnerFinished() {
    let upstream = Probe()
    var state = subscribed(upstream: upstream, inner: Probe())
    let finished = state.upstreamFinished()
    #expect(finished.released.subscription as? Probe === upstream)
    #expect(!finished.drains)
    let action = state.innerFinished(1)
    #expect(action.drains)
    #expect(drainAll(&state) == ["completion finished"])
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

  @Test func innerFailure_cancelsUpstream_isDeliverableAtOnce() {
    let upstream = Probe()
    let inner = Probe()
    var state = subscribed(upstream: upstream, inner: inner)
    _ = state.request(.max(2))
    _ = state.innerValue(1)
    let action = state.fail(Boom(), generation: 1)
    perform(action)
    #expect(upstream.cancelled)
    #expect(!inner.cancelled)
    #expect(action.released.subscription as? Probe === inner)
    #expect(action.drains)
    #expect(drainAll(&state) == ["completion failure"])
    #expect(drainAll(&state).isEmpty)  // handed out once
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

  @Test func cancel_whileFailing_handsOutTheFailure() {
    var state = subscribed(upstream: Probe(), inner: Probe())
    _ = state.fail(Boom(), generation: nil)
    let action = state.cancel()
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
