import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = DebounceState<Recorder>

/// What a drain run on `state` delivers, with `perValue` demand returned by each value.
private func drained(
  _ state: inout State,
  perValue: Subscribers.Demand = .none
) -> (values: [Int], completion: Subscribers.Completion<TestError>?) {
  var values: [Int] = []
  var more = Subscribers.Demand.none
  while let step = state.nextStep(adding: more) {
    switch step {
    case .value(_, let value):
      values.append(value)
      more = perValue
    case .completion(_, let completion, _):
      return (values, completion)
    }
  }
  return (values, nil)
}

/// A subscribed state whose subscriber asked for `demand`.
private func subscribed(demand: Subscribers.Demand) -> State {
  var state = State.awaitingSubscription(Recorder(initialDemand: nil), DebounceLive())
  do {
    let result = state.receive(subscription: IgnoredSubscription())
    #expect(result != nil)
  }
  if demand > .none {
    let result = state.request(demand)
    #expect(!result)
  }
  return state
}

/// Debounce's state machine, driven without threads or schedulers.
@Suite(.timeLimit(.minutes(5))) struct DebounceStateTests {
  @Test func secondSubscription_isRefused() {
    var state = subscribed(demand: .none)
    do {
      let result = state.receive(subscription: IgnoredSubscription())
      #expect(result == nil)
    }
  }

  @Test func value_restartsTheTimerAndReplacesThePendingValue() {
    var state = subscribed(demand: .max(1))
    let first = state.receive(1)
    #expect(first?.generation == 1)
    #expect(first?.replaced == nil)
    do {
      let result = state.install(AnyCancellable {}, for: 1)
      #expect(result)
    }
    let second = state.receive(2)
    #expect(second?.generation == 2)
    #expect(second?.replaced == 1)
    #expect(second?.superseded != nil)
    do {
      let result = state.install(AnyCancellable {}, for: 1)
      #expect(!result)
    }
  }

  @Test func staleTimer_doesNothing() {
    var state = subscribed(demand: .max(1))
    _ = state.receive(1)
    _ = state.receive(2)
    let fired = state.timerFired(1)
    #expect(!fired.claimed)
    #expect(fired.dropped == nil)
  }

  @Test func currentTimer_withDemand_claimsAndDeliversThePendingValue() {
    var state = subscribed(demand: .max(1))
    _ = state.receive(1)
    _ = state.receive(2)
    do {
      let result = state.install(AnyCancellable {}, for: 2)
      #expect(result)
    }
    let fired = state.timerFired(2)
    #expect(fired.claimed)
    #expect(fired.timer != nil)
    #expect(drained(&state).values == [2])
    // Fired once: a second firing of the same generation finds nothing pending.
    do {
      let fired = state.timerFired(2)
      #expect(!fired.claimed)
    }
  }

  @Test func currentTimer_withoutDemand_dropsThePendingValue() {
    var state = subscribed(demand: .none)
    _ = state.receive(1)
    let fired = state.timerFired(1)
    #expect(!fired.claimed)
    #expect(fired.dropped == 1)
    do {
      let result = state.request(.max(1))
      #expect(!result)
    }
  }

  @Test func dueValueWaitingForTheDrain_isSupersededByTheNextOne() {
    var state = subscribed(demand: .max(1))
    _ = state.receive(1)
    do {
      let fired = state.timerFired(1)
      #expect(fired.claimed)
    }
    // The draining thread has not taken 1 yet when 2 becomes due.
    _ = state.receive(2)
    let fired = state.timerFired(2)
    #expect(!fired.claimed)  // the drain is still claimed by the first firing
    #expect(fired.dropped == 1)
    #expect(drained(&state).values == [2])
  }

  @Test func completion_dropsPendingThenDeliversAfterTheDueValue() {
    var state = subscribed(demand: .max(2))
    _ = state.receive(1)
    do {
      let fired = state.timerFired(1)
      #expect(fired.claimed)
    }
    _ = state.receive(2)
    let completed = state.receive(completion: .finished)
    #expect(completed?.pending == 2)
    do {
      let result = state.receive(3)
      #expect(result == nil)
    }
    do {
      let result = state.finishCompleting()  // the drain is still claimed
      #expect(!result.claimed)
    }
    let result = drained(&state)
    #expect(result.values == [1])
    #expect(result.completion == .finished)
    guard case .terminal = state else {
      Issue.record("expected terminal, got \(state)")
      return
    }
  }

  @Test func completion_withNothingDue_isDeliveredByTheFinishingCall() {
    var state = subscribed(demand: .none)
    do {
      let result = state.receive(completion: .failure(TestError()))
      #expect(result != nil)
    }
    do {
      let result = state.receive(completion: .finished)
      #expect(result == nil)
    }
    do {
      let result = state.finishCompleting()
      #expect(result.claimed)
    }
    #expect(drained(&state).completion == .failure(TestError()))
  }

  @Test func cancel_releasesEverythingOnce() {
    var state = subscribed(demand: .max(1))
    _ = state.receive(1)
    do {
      let result = state.install(AnyCancellable {}, for: 1)
      #expect(result)
    }
    let cancelled = state.cancel()
    #expect(cancelled?.live?.pending == 1)
    #expect(cancelled?.live?.timer.timer != nil)
    #expect(cancelled?.upstream != nil)
    do {
      let result = state.cancel()
      #expect(result == nil)
    }
    do {
      let result = state.receive(2)
      #expect(result == nil)
    }
    do {
      let result = state.nextStep(adding: .none)
      #expect(result == nil)
    }
  }
}
