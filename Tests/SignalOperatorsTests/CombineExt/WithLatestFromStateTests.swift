import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators
@testable import StreamCombineExt

private typealias State = WithLatestFromState<RecordingSubscriber<String, TestError>, Int, String>

/// Drains `state` as the drain owner would; the log names each step.
private func drainAll(_ state: inout State) -> [String] {
  var log: [String] = []
  while let step = state.nextStep() {
    switch step {
    case .value(_, let input, let latest): log.append("\(input)\(latest)")
    case .completion(_, let completion, _): log.append("\(completion)")
    }
  }
  return log
}

/// What `receive(input)` leads to, by name; a direct delivery also names the pair the caller
/// delivers.
private func receive(_ input: Int, into state: inout State) -> String {
  switch state.receive(input) {
  case .dropped: "dropped"
  case .direct(_, let latest): "direct \(input)\(latest)"
  case .claimed: "claimed"
  case .queued: "queued"
  }
}

@Suite(.timeLimit(.minutes(5))) struct WithLatestFromStateTests {
  @Test func demandBeforeTheUpstream_isHeldForIt() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()))
    #expect(state.request(.max(2)) == nil)
    #expect(state.request(.max(1)) == nil)
    let upstream = SubscriptionProbe()
    #expect(state.upstreamSubscribed(upstream) == .max(3))
    let target = state.request(.max(1))
    #expect(upstream.isSame(as: target))
    #expect(state.upstreamSubscribed(SubscriptionProbe()) == nil)
  }

  @Test func valuesBeforeALatest_areDropped_thenPairedWithIt() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()))
    let accepted = state.otherSubscribed(SubscriptionProbe())
    #expect(accepted)
    #expect(receive(1, into: &state) == "dropped")
    #expect(state.otherValue("a").replaced == nil)
    // Nothing queued: the caller claims the drain and delivers the pair itself.
    #expect(receive(2, into: &state) == "direct 2a")
    #expect(receive(3, into: &state) == "queued")  // the drain is claimed
    #expect(state.otherValue("b").replaced == "a")
    #expect(drainAll(&state) == ["3a"])
    #expect(receive(4, into: &state) == "direct 4b")
    #expect(drainAll(&state) == [])  // lets go of the drain
    #expect(receive(5, into: &state) == "direct 5b")
  }

  @Test func secondsFailure_afterQueuedValues_cancelsTheUpstream() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()))
    let upstream = SubscriptionProbe()
    let other = SubscriptionProbe()
    _ = state.upstreamSubscribed(upstream)
    _ = state.otherSubscribed(other)
    _ = state.otherValue("a")
    #expect(receive(1, into: &state) == "direct 1a")
    #expect(receive(2, into: &state) == "queued")
    let finishing = state.finish(.failure(TestError()), fromUpstream: false)
    #expect(upstream.isSame(as: finishing.cancel))
    #expect(other.isSame(as: finishing.ended))
    #expect(!finishing.claimed)  // the claimed drain delivers it
    #expect(drainAll(&state) == ["2a", "failure(\(TestError()))"])
    #expect(state.finish(.finished, fromUpstream: true).cancel == nil)
  }

  @Test func secondFinishing_keepsTheLatest() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()))
    let other = SubscriptionProbe()
    _ = state.otherSubscribed(other)
    _ = state.otherValue("a")
    guard case .goesOn(let finished) = state.otherFinished() else {
      Issue.record("second's finishing ended the subscription")
      return
    }
    #expect(other.isSame(as: finished))
    #expect(receive(1, into: &state) == "direct 1a")
    #expect(receive(2, into: &state) == "queued")
    #expect(drainAll(&state) == ["2a"])
  }

  @Test func theUpstreamIsConnected_atSecondsFirstValue_once() {
    let connections = LockedState(0)
    var state = State.active(
      State.Active(downstream: RecordingSubscriber()) { connections.withLock { $0 += 1 } }
    )
    _ = state.otherSubscribed(SubscriptionProbe())
    let first = state.otherValue("a")
    first.connect?()
    #expect(state.otherValue("b").connect == nil)
    #expect(connections.withLock { $0 } == 1)
  }

  @Test func secondFinishingWithoutAValue_ends_andHandsOutTheConnection() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()) {})
    let other = SubscriptionProbe()
    _ = state.otherSubscribed(other)
    guard case .ends = state.otherFinished() else {
      Issue.record("second finished without a value, yet the subscription goes on")
      return
    }
    let finishing = state.finish(.finished, fromUpstream: false)
    #expect(finishing.cancel == nil)
    #expect(other.isSame(as: finishing.ended))
    #expect(finishing.connect != nil)
    #expect(finishing.claimed)
    #expect(drainAll(&state) == ["finished"])
  }

  @Test func cancelBeforeSecondsFirstValue_handsOutTheConnection() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()) {})
    let cancelled = state.cancel()
    #expect(cancelled.connect != nil)
    #expect(cancelled.upstream == nil)
  }

  @Test func cancel_handsOutEverything() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()))
    let upstream = SubscriptionProbe()
    let other = SubscriptionProbe()
    _ = state.upstreamSubscribed(upstream)
    _ = state.otherSubscribed(other)
    _ = state.otherValue("a")
    let cancelled = state.cancel()
    #expect(upstream.isSame(as: cancelled.upstream))
    #expect(other.isSame(as: cancelled.other))
    #expect(cancelled.latest == "a")
    #expect(cancelled.downstream != nil)
    #expect(receive(1, into: &state) == "queued")
    #expect(state.nextStep() == nil)
  }
}
