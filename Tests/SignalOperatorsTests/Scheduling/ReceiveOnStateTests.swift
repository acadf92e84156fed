import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

private typealias Recorder = RecordingSubscriber<Int, TestError>
private typealias State = ReceiveOnState<Recorder>

/// A state past its subscription, with the downstream's requests made while subscribing.
private func subscribed(requesting demand: Subscribers.Demand = .none) -> State {
  var state = State(downstream: Recorder(initialDemand: nil))
  let downstream = state.receive(subscription: IgnoredSubscription())
  #expect(downstream != nil)
  if demand > .none { _ = state.request(demand) }
  let initial = state.subscribed()
  #expect(initial == demand)
  return state
}

/// The values in `step`, or `nil` when it is a completion.
private func values(_ step: State.Step?) -> [Int]? {
  guard case .values(_, let batch) = step else { return nil }
  return batch
}

/// receive(on:)'s state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct ReceiveOnStateTests {
  @Test func requestsWhileSubscribing_areGatheredNotForwarded() {
    var state = State(downstream: Recorder(initialDemand: nil))
    _ = state.receive(subscription: IgnoredSubscription())
    let first = state.request(.max(2))
    let second = state.request(.max(3))
    #expect(first.upstream == nil)
    #expect(second.upstream == nil)
    let initial = state.subscribed()
    #expect(initial == .max(5))
    let later = state.request(.max(1))
    #expect(later.upstream != nil)
  }

  @Test func secondSubscription_isRefused() {
    var state = subscribed()
    let second = state.receive(subscription: IgnoredSubscription())
    #expect(second == nil)
  }

  @Test func onlyTheFirstValueClaimsTheDrain_untilItIsReleased() {
    var state = subscribed(requesting: .unlimited)
    let first = state.receive(1)
    let second = state.receive(2)
    #expect(first)
    #expect(!second)
    let batch = state.nextStep()
    #expect(values(batch) == [1, 2])
    let end = state.nextStep()
    #expect(end == nil)
    let third = state.receive(3)
    #expect(third)
  }

  @Test func valuesWaitForDemand_thenGoAsOneBatchWithinIt() {
    var state = subscribed()
    for value in 1...4 { _ = state.receive(value) }
    let idle = state.nextStep()
    #expect(idle == nil)
    let requested = state.request(.max(3))
    #expect(requested.claimed)
    let batch = state.nextStep()
    #expect(values(batch) == [1, 2, 3])
    let rest = state.nextStep()
    #expect(rest == nil)
    let more = state.request(.max(1))
    #expect(more.claimed)
    let last = state.nextStep()
    #expect(values(last) == [4])
  }

  @Test func completion_waitsBehindTheQueue_thenEnds() {
    var state = subscribed()
    _ = state.receive(1)
    let completed = state.receive(completion: .failure(TestError()))
    #expect(completed?.upstream != nil)
    #expect(completed?.claimed == false)
    let late = state.receive(2)
    #expect(!late)
    let requested = state.request(.max(1))
    #expect(requested.upstream == nil)
    let first = state.nextStep()
    #expect(values(first) == [1])
    let step = state.nextStep()
    guard case .completion(_, let completion) = step else {
      Issue.record("expected the completion, got \(String(describing: step))")
      return
    }
    #expect(completion == .failure(TestError()))
    #expect(state.downstream == nil)
    let after = state.request(.max(1))
    #expect(!after.claimed)
  }

  @Test func completionWithAnEmptyQueue_claimsAtOnce() {
    var state = subscribed()
    let completed = state.receive(completion: .finished)
    #expect(completed?.claimed == true)
    let second = state.receive(completion: .finished)
    #expect(second == nil)
  }

  @Test func delivered_addsTheReturnedDemandAndNamesTheUpstream() {
    var state = subscribed(requesting: .max(1))
    _ = state.receive(1)
    _ = state.receive(2)
    let first = state.nextStep()
    #expect(values(first) == [1])
    let upstream = state.delivered([], more: .max(1))
    #expect(upstream != nil)
    let second = state.nextStep()
    #expect(values(second) == [2])
    let none = state.delivered([], more: .none)
    #expect(none == nil)
  }

  @Test func cancel_handsOutEverythingAndEndsTheDrain() {
    var state = subscribed()
    _ = state.receive(1)
    _ = state.receive(2)
    let released = state.cancel()
    #expect(released.upstream != nil)
    #expect(released.downstream != nil)
    #expect(released.queue == [1, 2])
    #expect(released.completion == nil)
    #expect(state.queue.isEmpty)
    let late = state.receive(3)
    #expect(!late)
    let requested = state.request(.max(1))
    #expect(!requested.claimed)
    #expect(requested.upstream == nil)
  }

  @Test func cancelWhileCompleting_handsOutTheUndeliveredCompletion() {
    var state = subscribed()
    _ = state.receive(completion: .failure(TestError()))
    let released = state.cancel()
    #expect(released.completion == .failure(TestError()))
    #expect(released.upstream == nil)
  }
}
