import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = DelayState<Recorder>

/// What a drain run on `state` delivers.
private func drained(
  _ state: inout State
) -> (values: [Int], completion: Subscribers.Completion<TestError>?) {
  var values: [Int] = []
  while let step = state.nextStep(adding: .none) {
    switch step {
    case .value(_, let value):
      values.append(value)
    case .completion(_, let completion, _):
      return (values, completion)
    }
  }
  return (values, nil)
}

/// A subscribed state.
private func subscribed() -> State {
  var state = State.awaitingSubscription(Recorder(initialDemand: nil), RingBuffer())
  let downstream = state.receive(subscription: IgnoredSubscription())
  #expect(downstream != nil)
  return state
}

/// Delay's state machine, driven without threads or schedulers.
@Suite(.timeLimit(.minutes(5))) struct DelayStateTests {
  @Test func values_waitUntilTheirActionRuns() {
    var state = subscribed()
    let first = state.receive(1)
    let second = state.receive(2)
    #expect(first && second)
    let claimed = state.fire()
    #expect(claimed)
    #expect(drained(&state).values == [1])
    let claimedAgain = state.fire()
    #expect(claimedAgain)
    #expect(drained(&state).values == [2])
  }

  @Test func actionsWhileDraining_areDeliveredByTheDrainingThread() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(2)
    let claimed = state.fire()
    let claimedAgain = state.fire()
    #expect(claimed)
    #expect(!claimedAgain)
    #expect(drained(&state).values == [1, 2])
  }

  @Test func completion_waitsForTheValuesBeforeIt() {
    var state = subscribed()
    _ = state.receive(1)
    let upstream = state.receive(completion: .failure(TestError()))
    #expect(upstream != nil)
    #expect(state.upstream == nil)
    let late = state.receive(2)
    #expect(!late)
    let claimed = state.fire()
    #expect(claimed)
    let first = drained(&state)
    #expect(first.values == [1])
    #expect(first.completion == nil)
    let claimedAgain = state.fire()
    #expect(claimedAgain)
    let last = drained(&state)
    #expect(last.values.isEmpty)
    #expect(last.completion == .failure(TestError()))
    guard case .terminal = state else {
      Issue.record("expected terminal, got \(state)")
      return
    }
  }

  @Test func cancel_releasesWaitingEventsOnce() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(completion: .finished)
    let cancelled = state.cancel()
    #expect(cancelled.flatMap { $0.live.map(Array.init) } == [1])
    #expect(cancelled?.completion == .finished)
    #expect(cancelled?.upstream == nil)
    #expect(state.cancel() == nil)
    let claimed = state.fire()
    #expect(!claimed)
  }
}
