import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = MeasureIntervalState<Recorder, Int>

/// MeasureInterval's state machine, driven without threads; times are plain integers.
@Suite(.timeLimit(.minutes(5))) struct MeasureIntervalStateTests {
  @Test func eachValue_returnsThePreviousTimeAndKeepsTheNewOne() {
    let recorder = Recorder()
    var state = State.awaitingSubscription(recorder)
    let early = state.receive(at: 1)
    #expect(early == nil)
    let downstream = state.receive(subscription: IgnoredSubscription(), at: 10)
    #expect(downstream === recorder)
    let second = state.receive(subscription: IgnoredSubscription(), at: 11)
    #expect(second == nil)
    let first = state.receive(at: 15)
    #expect(first?.last == 10)
    #expect(first?.downstream === recorder)
    let next = state.receive(at: 22)
    #expect(next?.last == 15)
    #expect(state.upstream != nil)
  }

  @Test func complete_endsOnceAndHandsOutBothEnds() {
    let recorder = Recorder()
    var state = State.awaitingSubscription(recorder)
    let early = state.complete()
    #expect(early == nil)  // before the subscription, a completion is ignored
    let subscription = IgnoredSubscription()
    _ = state.receive(subscription: subscription, at: 0)
    let ended = state.complete()
    #expect(ended?.upstream?.combineIdentifier == subscription.combineIdentifier)
    #expect(ended?.downstream === recorder)
    let again = state.complete()
    #expect(again == nil)
    let cancelled = state.cancel()
    #expect(cancelled == nil)
    let late = state.receive(at: 5)
    #expect(late == nil)
    #expect(state.upstream == nil)
  }

  @Test func cancel_beforeTheSubscription_releasesTheSubscriber() {
    let recorder = Recorder()
    var state = State.awaitingSubscription(recorder)
    let cancelled = state.cancel()
    #expect(cancelled?.upstream == nil)
    #expect(cancelled?.downstream === recorder)
    let downstream = state.receive(subscription: IgnoredSubscription(), at: 0)
    #expect(downstream == nil)
  }
}
