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

/// What one action on `state` takes: the value, `-1` for the completion, `nil` for nothing.
private func take(_ state: inout State, holdsGate: Bool = false) -> Int? {
  var event: State.Event?
  var released: State.Phase?
  guard state.take(holdsGate: holdsGate, event: &event, released: &released) != nil else {
    return nil
  }
  switch event {
  case .value(let value): return value
  case .completion: return -1
  case nil: return nil
  }
}

/// What the next owed action takes, as ``take(_:holdsGate:)``.
private func takeOwed(_ state: inout State) -> Int? {
  var event: State.Event?
  var released: State.Phase?
  guard state.takeOwed(event: &event, released: &released) != nil else { return nil }
  if case .value(let value) = event { return value }
  return event == nil ? nil : -1
}

/// receive(on:)'s state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct ReceiveOnStateTests {
  @Test func requests_goToTheUpstreamOnlyWhileSubscribed() {
    var state = State(downstream: Recorder(initialDemand: nil))
    #expect(state.requestTarget == nil)
    _ = state.receive(subscription: IgnoredSubscription())
    #expect(state.requestTarget != nil)
    let completes = state.receive(completion: .finished)
    #expect(completes)
    #expect(state.requestTarget == nil)  // as Combine's: not once the upstream completed
    #expect(state.returnedDemandTarget != nil)  // but a queued value's returned demand is
  }

  @Test func secondSubscription_isRefused() {
    var state = subscribed()
    let second = state.receive(subscription: IgnoredSubscription())
    #expect(second == nil)
  }

  @Test func eachAction_takesTheOldestEvent_andTheCompletionLast() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(2)
    _ = state.receive(completion: .finished)
    #expect(take(&state) == 1)
    #expect(take(&state) == 2)
    #expect(take(&state) == -1)
    #expect(state.returnedDemandTarget == nil)
    #expect(take(&state) == nil)
  }

  @Test func eventsBeforeSubscriptionOrAfterCompletion_areNotScheduled() {
    var state = State(downstream: Recorder(initialDemand: nil))
    let early = state.receive(1)
    #expect(!early)
    _ = state.receive(subscription: IgnoredSubscription())
    let completes = state.receive(completion: .finished)
    #expect(completes)
    let late = state.receive(2)
    #expect(!late)
    let again = state.receive(completion: .finished)
    #expect(!again)
  }

  @Test func actionOnTheThreadInsideTheSubscriber_isOwedToIt() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(2)
    #expect(take(&state) == 1)
    #expect(take(&state, holdsGate: true) == nil)  // the delivery of 1 makes it next
    #expect(takeOwed(&state) == 2)
    #expect(takeOwed(&state) == nil)
  }

  @Test func actionInsideReceiveSubscription_isNotOwed() {
    var state = State(downstream: Recorder(initialDemand: nil))
    _ = state.receive(subscription: IgnoredSubscription())
    _ = state.receive(1)
    #expect(take(&state, holdsGate: true) == 1)  // delivered at once, as in Combine
  }

  @Test func cancel_dropsQueuedEvents_andCancelsTheUpstreamOnce() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(2)
    var released: (State.Phase, RingBuffer<State.Event>)?
    #expect(state.cancel(released: &released) != nil)
    #expect(released?.1.count == 2)
    #expect(take(&state) == nil)
    var again: (State.Phase, RingBuffer<State.Event>)?
    #expect(state.cancel(released: &again) == nil)
  }

  /// `receive(on:)`, as Combine's: once the completion is queued, a cancel changes nothing.
  @Test func cancelWhileCompleting_doesNothing() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(completion: .finished)
    var released: (State.Phase, RingBuffer<State.Event>)?
    #expect(state.cancel(released: &released) == nil)
    #expect(released == nil)
    #expect(take(&state) == 1)
    #expect(take(&state) == -1)  // the completion
  }

  /// `timeout`, as Combine's: a cancel while the completion is queued ends the subscription
  /// and cancels the upstream.
  @Test func cancelWhileCompleting_endingIt_cancelsTheUpstream() {
    var state = subscribed()
    _ = state.receive(completion: .finished)
    var released: (State.Phase, RingBuffer<State.Event>)?
    #expect(state.cancel(endsCompleting: true, released: &released) != nil)
    #expect(released != nil)
    #expect(take(&state) == nil)  // nothing after the cancel
  }

  /// `timeout`: the values not yet delivered are dropped, and only its completion is queued.
  @Test func timeOut_dropsTheQueue_thenQueuesTheCompletion() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(2)
    let timedOut = state.timeOut()
    #expect(timedOut?.dropped.count == 2)
    #expect(state.timeOut() == nil)
    let late = state.receive(3)
    #expect(!late)
    let queued = state.queueTimeout(.finished)
    let again = state.queueTimeout(.finished)
    #expect(queued)
    #expect(!again)
    #expect(take(&state) == -1)
    #expect(take(&state) == nil)
  }
}
