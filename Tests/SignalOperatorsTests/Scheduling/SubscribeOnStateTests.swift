import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = SubscribeOnState<ReleaseToken, Recorder>

/// SubscribeOn's state machine, driven without threads; a token stands for the upstream
/// publisher.
@Suite(.timeLimit(.minutes(5))) struct SubscribeOnStateTests {
  @Test func publisher_isTakenOnce_thenTheSubscriptionArrives() {
    let recorder = Recorder()
    let publisher = ReleaseToken()
    var state = State.awaitingSubscription(recorder, publisher: publisher)
    let taken = state.takePublisher()
    #expect(taken === publisher)
    let again = state.takePublisher()
    #expect(again == nil)
    #expect(state.downstream == nil)
    let subscription = IgnoredSubscription()
    let downstream = state.receive(subscription: subscription)
    #expect(downstream === recorder)
    let second = state.receive(subscription: IgnoredSubscription())
    #expect(second == nil)
    #expect(state.downstream === recorder)
    #expect(state.upstream?.combineIdentifier == subscription.combineIdentifier)
  }

  @Test func complete_handsOutBothEndsOnce() {
    let recorder = Recorder()
    var state = State.awaitingSubscription(recorder, publisher: nil)
    let early = state.complete()
    #expect(early == nil)
    _ = state.receive(subscription: IgnoredSubscription())
    let ended = state.complete()
    #expect(ended?.downstream === recorder)
    #expect(ended?.upstream != nil)
    let cancelled = state.cancel()
    #expect(cancelled == nil)
    #expect(state.downstream == nil)
  }

  @Test func cancel_beforeTheSchedulerRan_dropsThePublisher() {
    let recorder = Recorder()
    let publisher = ReleaseToken()
    var state = State.awaitingSubscription(recorder, publisher: publisher)
    let cancelled = state.cancel()
    #expect(cancelled?.publisher === publisher)
    #expect(cancelled?.upstream == nil)
    #expect(cancelled?.downstream === recorder)
    let taken = state.takePublisher()
    #expect(taken == nil)
  }
}
