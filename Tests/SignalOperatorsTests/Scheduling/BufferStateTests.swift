import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = BufferState<Recorder>

/// What a drain run on `state` delivers, and how many refills it asked for.
private func drained(
  _ state: inout State,
  refills: Bool = false
) -> (values: [Int], completion: Subscribers.Completion<TestError>?, refills: Int) {
  var values: [Int] = []
  var refillCount = 0
  while let step = state.nextStep(adding: .none, refills: refills) {
    switch step {
    case .value(_, let value, let refills):
      values.append(value)
      if refills { refillCount += 1 }
    case .completion(_, let completion):
      return (values, completion, refillCount)
    }
  }
  return (values, nil, refillCount)
}

/// A subscribed state, whose subscribing thread has let go of the drain it holds until the
/// subscriber has its subscription.
private func subscribed() -> State {
  var state = State.awaitingSubscription(Recorder(initialDemand: nil))
  let downstream = state.receive(subscription: IgnoredSubscription())
  #expect(downstream != nil)
  let step = state.nextStep(adding: .none, refills: false)
  #expect(step == nil)  // nothing to deliver: the drain is released
  return state
}

/// Whether `outcome` claimed the drain.
private func claims(_ outcome: State.ValueOutcome) -> Bool {
  if case .drain = outcome { return true }
  return false
}

/// Buffer's state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct BufferStateTests {
  @Test func values_waitForDemand_thenGoInOrder() {
    var state = subscribed()
    for value in 1...3 {
      let outcome = state.receive(value, size: 5, whenFull: .dropNewest)
      #expect(!claims(outcome))
    }
    let requested = state.request(.max(2))
    #expect(requested.claimed)
    #expect(requested.upstream != nil)
    let run = drained(&state, refills: true)
    #expect(run.values == [1, 2])
    #expect(run.refills == 2)
    #expect(run.completion == nil)
  }

  @Test func dropOldest_keepsTheNewestAndHandsOutTheDroppedValue() {
    var state = subscribed()
    _ = state.receive(1, size: 2, whenFull: .dropOldest)
    _ = state.receive(2, size: 2, whenFull: .dropOldest)
    let outcome = state.receive(3, size: 2, whenFull: .dropOldest)
    guard case .dropped(let value) = outcome else {
      Issue.record("expected the oldest value to be handed out, got \(outcome)")
      return
    }
    #expect(value == 1)
    _ = state.request(.unlimited)
    #expect(drained(&state).values == [2, 3])
  }

  @Test func overflow_withCustomError_keepsTheBufferAndFailsOnTheNextRequest() {
    // As Combine's: the error waits for the next request, after the values it covers.
    var state = subscribed()
    _ = state.receive(1, size: 2, whenFull: .customError { TestError() })
    _ = state.receive(2, size: 2, whenFull: .customError { TestError() })
    let outcome = state.receive(3, size: 2, whenFull: .customError { TestError() })
    guard case .overflow = outcome else {
      Issue.record("expected an overflow, got \(outcome)")
      return
    }
    #expect(state.upstream == nil)
    #expect(state.fail(TestError(code: 7)) == nil)  // kept, to go on the next request
    #expect(state.receive(completion: .finished) == nil)  // the upstream was cancelled
    let requested = state.request(.max(1))
    #expect(requested.claimed)
    let run = drained(&state)
    #expect(run.values == [1])
    #expect(run.completion == .failure(TestError(code: 7)))
  }

  @Test func failure_goesAtOnceWithoutDemand_droppingTheBuffer() {
    var state = subscribed()
    _ = state.receive(1, size: 5, whenFull: .dropNewest)
    let completed = state.receive(completion: .failure(TestError()))
    #expect(completed?.claimed == true)
    let run = drained(&state)
    #expect(run.values.isEmpty)
    #expect(run.completion == .failure(TestError()))
  }

  @Test func finished_waitsForTheBufferedValues() {
    var state = subscribed()
    _ = state.receive(1, size: 5, whenFull: .dropNewest)
    let completed = state.receive(completion: .finished)
    #expect(completed?.claimed == false)
    #expect(state.upstream == nil)
    let requested = state.request(.max(1))
    #expect(requested.claimed)
    #expect(requested.upstream == nil)
    let run = drained(&state, refills: true)
    #expect(run.values == [1])
    #expect(run.refills == 0)
    #expect(run.completion == nil)  // as Combine's: `.finished` waits for demand
    #expect(state.request(.max(1)).claimed)
    #expect(drained(&state).completion == .finished)
  }

  @Test func cancel_handsOutEverythingAndIgnoresLaterEvents() {
    var state = subscribed()
    _ = state.receive(1, size: 5, whenFull: .dropNewest)
    let cancelled = state.cancel()
    #expect(cancelled?.upstream != nil)
    #expect(cancelled.map { Array($0.remains?.values ?? RingBuffer()) } == [1])
    #expect(state.cancel() == nil)
    let outcome = state.receive(2, size: 5, whenFull: .dropNewest)
    #expect(!claims(outcome))
    #expect(state.request(.max(1)).claimed == false)
  }
}
