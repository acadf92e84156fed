import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = PassThroughState<Recorder, ReleaseToken>

/// A link's state before the upstream's subscription arrives.
private func awaiting(_ recorder: Recorder, _ token: ReleaseToken) -> State {
  .awaiting(State.Delivery(downstream: recorder, extra: token))
}

/// PassThroughLink's state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct PassThroughStateTests {
  @Test func attach_takesTheFirstSubscriptionOnly() {
    let recorder = Recorder()
    let token = ReleaseToken()
    var state = awaiting(recorder, token)
    #expect(state.delivery == nil)
    #expect(state.upstream == nil)
    let first = IgnoredSubscription()
    let attached = state.attach(first)
    #expect(attached?.downstream === recorder)
    #expect(attached?.extra === token)
    let second = state.attach(IgnoredSubscription())
    #expect(second == nil)
    #expect(state.delivery?.downstream === recorder)
    #expect(state.upstream?.subscription.combineIdentifier == first.combineIdentifier)
    #expect(state.upstream?.extra === token)
    #expect(!state.isTerminal)
  }

  @Test func end_handsOutEverythingOnce() {
    let recorder = Recorder()
    let token = ReleaseToken()
    var state = awaiting(recorder, token)
    let subscription = IgnoredSubscription()
    _ = state.attach(subscription)
    let ended = state.end()
    #expect(ended?.upstream?.combineIdentifier == subscription.combineIdentifier)
    #expect(ended?.downstream === recorder)
    #expect(ended?.extra === token)
    #expect(state.isTerminal)
    #expect(state.delivery == nil)
    let again = state.end()
    #expect(again == nil)
    let late = state.attach(IgnoredSubscription())
    #expect(late == nil)
  }

  @Test func end_beforeTheSubscription_hasNoUpstream() {
    var state = awaiting(Recorder(), ReleaseToken())
    let ended = state.end()
    #expect(ended != nil)
    #expect(ended?.upstream == nil)
    #expect(state.isTerminal)
  }
}
