import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = ReceiveOnState<Recorder>

/// A state past its subscription, whose subscriber's `receive(subscription:)` has returned.
private func subscribed() -> State {
  var state = State(downstream: Recorder(initialDemand: nil))
  let downstream = state.receive(subscription: IgnoredSubscription())
  #expect(downstream != nil)
  state.subscribing = false
  return state
}

/// The value in `delivery`, or `nil` when it is a completion.
private func value(_ delivery: (State.Delivery, Recorder)?) -> Int? {
  guard case .value(let value) = delivery?.0 else { return nil }
  return value
}

/// receive(on:)'s state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct ReceiveOnStateTests {
  @Test func requests_goToTheUpstreamOnlyWhileSubscribed() {
    var state = State(downstream: Recorder(initialDemand: nil))
    #expect(state.requestTarget == nil)
    _ = state.receive(subscription: IgnoredSubscription())
    #expect(state.requestTarget != nil)
    let accepted1 = state.receive(completion: .finished)
    #expect(accepted1)
    #expect(state.requestTarget == nil)  // as Combine's: not once the upstream completed
    #expect(state.target != nil)  // but a value scheduled before it is still delivered
  }

  @Test func valueActionInsideReceiveSubscription_isNotDeferred() {
    var state = State(downstream: Recorder(initialDemand: nil))
    _ = state.receive(subscription: IgnoredSubscription())
    #expect(state.take(1, holdsGate: true) != nil)  // delivered at once, as in Combine
  }

  @Test func secondSubscription_isRefused() {
    var state = subscribed()
    let second = state.receive(subscription: IgnoredSubscription())
    #expect(second == nil)
  }

  @Test func valuesBeforeSubscriptionOrAfterCompletion_areNotScheduled() {
    var state = State(downstream: Recorder(initialDemand: nil))
    #expect(!state.acceptsValues)
    _ = state.receive(subscription: IgnoredSubscription())
    #expect(state.acceptsValues)
    let completes = state.receive(completion: .finished)
    #expect(completes)
    #expect(!state.acceptsValues)
    let again = state.receive(completion: .finished)
    #expect(!again)  // a second completion isn't scheduled
  }

  @Test func valueActionOnTheThreadInsideTheSubscriber_isDeferredToIt() {
    var state = subscribed()
    #expect(state.take(1, holdsGate: false) != nil)
    #expect(state.take(2, holdsGate: true) == nil)  // the delivery of 1 makes it next
    var released: State.Phase?
    #expect(value(state.nextDeferred(released: &released)) == 2)
    #expect(state.nextDeferred(released: &released) == nil)
  }

  @Test func deferredCompletion_followsDeferredValues_andEndsTheSubscription() {
    var state = subscribed()
    _ = state.take(1, holdsGate: true)
    _ = state.receive(completion: .finished)
    state.deferred.append(.completion(.finished))
    var released: State.Phase?
    #expect(value(state.nextDeferred(released: &released)) == 1)
    guard case .completion(.finished) = state.nextDeferred(released: &released)?.0 else {
      Issue.record("expected the completion")
      return
    }
    #expect(released != nil)
    #expect(state.target == nil)
  }

  @Test func completionAction_takesTheSubscriberOnce() {
    var state = subscribed()
    _ = state.receive(completion: .finished)
    var released: State.Phase?
    #expect(state.takeForCompletion(released: &released) != nil)
    #expect(state.takeForCompletion(released: &released) == nil)
  }

  @Test func cancel_dropsDeferredValues_andCancelsTheUpstreamOnce() {
    var state = subscribed()
    _ = state.take(1, holdsGate: true)
    _ = state.take(2, holdsGate: true)
    var released: (State.Phase, RingBuffer<State.Delivery>)?
    #expect(state.cancel(released: &released) != nil)
    #expect(released?.1.count == 2)
    #expect(state.take(3, holdsGate: false) == nil)
    var phase: State.Phase?
    #expect(state.nextDeferred(released: &phase) == nil)
    var again: (State.Phase, RingBuffer<State.Delivery>)?
    #expect(state.cancel(released: &again) == nil)
  }

  @Test func cancelWhileCompleting_endsWithoutAnUpstreamToCancel() {
    var state = subscribed()
    _ = state.receive(completion: .finished)
    var released: (State.Phase, RingBuffer<State.Delivery>)?
    #expect(state.cancel(released: &released) == nil)
    #expect(released != nil)
    var phase: State.Phase?
    #expect(state.takeForCompletion(released: &phase) == nil)  // nothing after the cancel
  }
}
