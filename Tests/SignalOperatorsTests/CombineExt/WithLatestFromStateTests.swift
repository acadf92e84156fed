import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

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
    #expect(state.receive(1) == .dropped)
    #expect(state.otherValue("a") == nil)
    #expect(state.receive(2) == .claimed)
    #expect(state.receive(3) == .queued)  // the drain is claimed
    #expect(state.otherValue("b") == "a")
    #expect(drainAll(&state) == ["2a", "3a"])
    #expect(state.receive(4) == .claimed)
    #expect(drainAll(&state) == ["4b"])
  }

  @Test func secondsFailure_afterQueuedValues_cancelsTheUpstream() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()))
    let upstream = SubscriptionProbe()
    let other = SubscriptionProbe()
    _ = state.upstreamSubscribed(upstream)
    _ = state.otherSubscribed(other)
    _ = state.otherValue("a")
    #expect(state.receive(1) == .claimed)
    let finishing = state.finish(.failure(TestError()), fromUpstream: false)
    #expect(upstream.isSame(as: finishing.cancel))
    #expect(other.isSame(as: finishing.ended))
    #expect(!finishing.claimed)  // the claimed drain delivers it
    #expect(drainAll(&state) == ["1a", "failure(\(TestError()))"])
    #expect(state.finish(.finished, fromUpstream: true).cancel == nil)
  }

  @Test func secondFinishing_keepsTheLatest() {
    var state = State.active(State.Active(downstream: RecordingSubscriber()))
    let other = SubscriptionProbe()
    _ = state.otherSubscribed(other)
    _ = state.otherValue("a")
    let finished = state.otherFinished()
    #expect(other.isSame(as: finished))
    #expect(state.receive(1) == .claimed)
    #expect(drainAll(&state) == ["1a"])
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
    #expect(state.receive(1) == .queued)
    #expect(state.nextStep() == nil)
  }
}
