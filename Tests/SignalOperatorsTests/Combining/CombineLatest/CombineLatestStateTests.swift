import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Values = CombineLatestValues2<Int, String>
private typealias Recorder = RecordingSubscriber<(Int, String), TestError>
private typealias State = CombineLatestState<Values, Recorder>
private typealias Left = CombiningSlot0<Values>
private typealias Right = CombiningSlot1<Values>

/// `"1a"` for a tuple.
private func text(_ output: (Int, String)) -> String { "\(output.0)\(output.1)" }

/// A name for what a value led to: `"ignore"`, `"queued"`, or `"deliver 1a"` with
/// ` unlimited` when set.
private func name(_ action: State.ValueAction) -> String {
  switch action {
  case .ignore: return "ignore"
  case .queued: return "queued"
  case .deliver(let output, _, let unlimited):
    return "deliver \(text(output))" + (unlimited ? " unlimited" : "")
  }
}

/// `state.receive(value, slot:)`, dropping the replaced value; `claims`: whether the drain is
/// idle, so that a claim would succeed.
private func receive<Slot: CombiningSlot>(
  _ value: Slot.Value,
  _ slot: Slot.Type,
  into state: inout State,
  claims: Bool = true
) -> State.ValueAction where Slot.Storage == Values {
  var replaced: Slot.Value?
  return state.receive(value, slot: slot, replaced: &replaced) { claims }
}

/// Drains `state` as the claiming thread would, the subscriber returning `.none`; the log names
/// each step.
private func drainAll(_ state: inout State) -> [String] {
  var log: [String] = []
  while let step = state.nextStep() {
    switch step {
    case .value(let output, _):
      log.append(text(output))
      state.delivered(more: .none)
    case .completion(let completion, _, let released):
      let kind = if case .failure = completion { "failure" } else { "finished" }
      log.append(
        "\(kind) released \(String(describing: released.value0)) \(String(describing: released.value1))"
      )
      return log
    }
  }
  return log
}

/// A state with both upstreams subscribed.
private func subscribed(_ left: SubscriptionProbe, _ right: SubscriptionProbe) -> State {
  var state = State(downstream: Recorder())
  let first = state.subscribed(left, at: 0)
  #expect(first == .keep)
  let second = state.subscribed(right, at: 1)
  #expect(second == .keep)
  return state
}

/// CombineLatest's state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct CombineLatestStateTests {
  @Test func subscription_requestsTheOutstandingDemand_secondIsCancelled() {
    var state = State(downstream: Recorder())
    _ = state.add(.max(2))
    let first = state.subscribed(SubscriptionProbe(), at: 0)
    #expect(first == .request(.max(2)))
    let second = state.subscribed(SubscriptionProbe(), at: 0)
    #expect(second == .cancel)
  }

  @Test func request_goesToEveryUpstreamNotCompleted() {
    let left = SubscriptionProbe()
    let right = SubscriptionProbe()
    var state = subscribed(left, right)
    let released = state.add(.max(3))
    #expect(released == false)
    state.upstreamCalls().request(.max(3))
    #expect(left.requested == [.max(3)])
    #expect(right.requested == [.max(3)])
    _ = receive(1, Left.self, into: &state)
    _ = state.complete(.finished, at: 0)
    _ = state.add(.max(1))
    state.upstreamCalls().request(.max(1))
    #expect(left.requested == [.max(3)])
    #expect(right.requested == [.max(3), .max(1)])
  }

  @Test func firstValues_areStored_thenTheTupleGoesDownWithTheDrainClaimed() {
    var state = subscribed(SubscriptionProbe(), SubscriptionProbe())
    _ = state.add(.max(2))
    let first = receive(1, Left.self, into: &state)
    #expect(name(first) == "ignore")
    let second = receive("a", Right.self, into: &state)
    #expect(name(second) == "deliver 1a")
    #expect(state.demand == .max(1))
    let done = state.nextStep()
    #expect(done == nil)  // nothing queued
  }

  @Test func valueWithoutDemand_replacesTheLatest_andTheNextRequestSendsTheLatestTuple() {
    var state = subscribed(SubscriptionProbe(), SubscriptionProbe())
    _ = receive(1, Left.self, into: &state)
    _ = receive("a", Right.self, into: &state)
    var replaced: Int?
    let newer = state.receive(2, slot: Left.self, replaced: &replaced) { true }
    #expect(name(newer) == "ignore")
    #expect(replaced == 1)
    #expect(state.held)
    let released = state.add(.max(2))
    #expect(released == true)
    #expect(drainAll(&state) == ["2a"])
    #expect(!state.held)
    #expect(state.demand == .max(1))
    #expect(state.add(.max(1)) == false)  // nothing new is held
  }

  @Test func unlimitedDemand_isReported_andLaterRequestsGoNowhere() {
    var state = subscribed(SubscriptionProbe(), SubscriptionProbe())
    _ = state.add(.unlimited)
    _ = receive(1, Left.self, into: &state)
    let paired = receive("a", Right.self, into: &state)
    #expect(name(paired) == "deliver 1a unlimited")
    #expect(state.add(.max(1)) == nil)
    let returned = state.returned(.max(1), from: 1)
    #expect(!returned.returning)
  }

  /// As Combine's (forums thread 709494): the others are not asked for it.
  @Test func returnedDemand_goesBackToTheSenderOnly() {
    let left = SubscriptionProbe()
    let right = SubscriptionProbe()
    var state = subscribed(left, right)
    _ = state.add(.max(1))
    _ = receive(1, Left.self, into: &state)
    _ = receive("a", Right.self, into: &state)
    let returned = state.returned(.max(2), from: 1)
    #expect(returned.returning)
    #expect(!returned.drain)
    #expect(left.requested == [])
    #expect(right.requested == [])  // by the return value
    #expect(state.demand == .max(2))
  }

  @Test func returnedDemand_releasesATupleHeldMeanwhile() {
    var state = subscribed(SubscriptionProbe(), SubscriptionProbe())
    _ = state.add(.max(1))
    _ = receive(1, Left.self, into: &state)
    _ = receive("a", Right.self, into: &state)  // claims the drain; the demand is spent
    let other = receive(2, Left.self, into: &state, claims: false)
    #expect(name(other) == "ignore")
    let returned = state.returned(.max(1), from: 1)
    #expect(returned.drain)
    #expect(drainAll(&state) == ["2a"])
  }

  @Test func tupleWhileClaimed_isQueuedForTheClaimer_inOrder() {
    var state = subscribed(SubscriptionProbe(), SubscriptionProbe())
    _ = state.add(.max(5))
    _ = receive(1, Left.self, into: &state)
    let delivering = receive("a", Right.self, into: &state)
    #expect(name(delivering) == "deliver 1a")
    let left = receive(2, Left.self, into: &state, claims: false)
    #expect(name(left) == "queued")
    // Queued behind the first even once the drain is idle: tuples stay in order.
    let right = receive("b", Right.self, into: &state, claims: true)
    #expect(name(right) == "queued")
    #expect(drainAll(&state) == ["2a", "2b"])
  }

  /// As Combine's: the demand returned for a queued tuple is only added to the subscriber's.
  @Test func deliveredQueuedTuple_addsTheReturnedDemand_asksNoUpstream() {
    let left = SubscriptionProbe()
    let right = SubscriptionProbe()
    var state = subscribed(left, right)
    _ = state.add(.max(5))
    _ = receive(1, Left.self, into: &state)
    _ = receive("a", Right.self, into: &state)
    _ = receive(2, Left.self, into: &state, claims: false)  // queued
    let step = state.nextStep()
    guard case .value(let output, _)? = step else {
      Issue.record("expected a tuple, got \(String(describing: step))")
      return
    }
    #expect(text(output) == "2a")
    let before = state.demand
    state.delivered(more: .max(1))
    #expect(left.requested == [])
    #expect(right.requested == [])
    #expect(state.demand == before + 1)
  }

  @Test func finishWithOrWithoutAValue_waitsForTheOthers() {
    let left = SubscriptionProbe()
    let right = SubscriptionProbe()
    var state = subscribed(left, right)
    _ = receive(1, Left.self, into: &state)
    let rightDone = state.complete(.finished, at: 1)  // never sent a value
    #expect(!rightDone.ending)
    #expect(rightDone.released as? SubscriptionProbe === right)
    #expect(rightDone.cancels.isEmpty)
    #expect(state.isActive)
    let leftDone = state.complete(.finished, at: 0)
    #expect(leftDone.ending)
    #expect(drainAll(&state) == ["finished released Optional(1) nil"])
    #expect(state.isTerminal)
  }

  @Test func failure_cancelsTheOthers_queuedTuplesGoFirst() {
    let left = SubscriptionProbe()
    let right = SubscriptionProbe()
    var state = subscribed(left, right)
    _ = state.add(.max(5))
    _ = receive(1, Left.self, into: &state)
    _ = receive("a", Right.self, into: &state)  // claims the drain
    _ = receive(2, Left.self, into: &state, claims: false)  // queued
    let failing = state.complete(.failure(TestError()), at: 1)
    #expect(failing.ending)
    failing.cancels.cancel()
    #expect(left.cancelled)
    #expect(!right.cancelled)  // the failing upstream is released, not cancelled
    let late = receive(3, Left.self, into: &state)
    #expect(name(late) == "ignore")
    #expect(drainAll(&state) == ["2a", "failure released Optional(2) Optional(\"a\")"])
  }

  @Test func cancel_handsOutEverything_andNothingIsDeliveredAfter() {
    let left = SubscriptionProbe()
    let right = SubscriptionProbe()
    var state = subscribed(left, right)
    _ = state.add(.max(5))
    _ = receive(1, Left.self, into: &state)
    _ = receive("a", Right.self, into: &state)  // claims the drain
    _ = receive(2, Left.self, into: &state, claims: false)  // queued
    let cancelled = state.cancel()
    cancelled.cancels.cancel()
    #expect(left.cancelled && right.cancelled)
    #expect(cancelled.downstream != nil)
    #expect(cancelled.queue.count == 1)
    #expect(cancelled.storage.value0 == 2)
    #expect(cancelled.completion == nil)
    #expect(state.isTerminal)
    let after = state.nextStep()
    #expect(after == nil)  // the claimer stops
    #expect(state.add(.max(1)) == nil)
    #expect(state.upstreamCalls().isEmpty)
  }

  @Test func cancel_whileEnding_handsOutThePendingCompletion() {
    var state = subscribed(SubscriptionProbe(), SubscriptionProbe())
    _ = state.add(.max(5))
    _ = receive(1, Left.self, into: &state)
    _ = receive("a", Right.self, into: &state)  // claims the drain
    _ = state.complete(.failure(TestError()), at: 0)
    let cancelled = state.cancel()
    #expect(cancelled.completion == .failure(TestError()))
    #expect(cancelled.downstream != nil)
  }
}
