import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators

/// A stand-in for the awaiting task's continuation.
private typealias Waiter = ReleaseToken
private typealias State = AsyncValuesState<Int, TestError, Waiter>

/// The element a `.resume` action returns, or `nil` for another action.
private func resumed(_ action: State.NextAction) -> Result<Int, TestError>?? {
  guard case .resume(let element) = action else { return nil }
  return .some(element)
}

/// Whether `action` asks for one value.
private func requests(_ action: State.NextAction) -> Bool {
  if case .request = action { return true }
  return false
}

/// A subscribed state.
private func subscribed(policy: ValuesBuffering?) -> State {
  var state = State.awaitingSubscription(waiter: nil)
  let action = state.receive(subscription: IgnoredSubscription(), policy: policy)
  if case .cancel = action { Issue.record("the first subscription was refused") }
  return state
}

/// The async sequences' subscriber state machine, driven without threads or tasks.
@Suite(.timeLimit(.minutes(5))) struct AsyncValuesStateTests {
  @Test func demandDriven_eachNextRequestsOneValue_thatGoesToTheWaiter() {
    var state = subscribed(policy: nil)
    let waiter = Waiter()
    let next = state.next(waiter, policy: nil)
    #expect(requests(next))
    let received = state.receive(1, policy: nil)
    guard case .resume(let resumedWaiter) = received else {
      Issue.record("expected the waiter to be resumed, got \(received)")
      return
    }
    #expect(resumedWaiter === waiter)
    let unasked = state.receive(2, policy: nil)  // a value nobody waits for is kept
    guard case .buffered(let dropped) = unasked else {
      Issue.record("expected the value to be buffered, got \(unasked)")
      return
    }
    #expect(dropped == nil)
    let buffered = state.next(Waiter(), policy: nil)
    #expect(resumed(buffered) == .some(.success(2)))
  }

  @Test func waiterBeforeTheSubscription_isAskedForOnArrival() {
    var state = State.awaitingSubscription(waiter: nil)
    let next = state.next(Waiter(), policy: nil)
    #expect(!requests(next))
    let action = state.receive(subscription: IgnoredSubscription(), policy: nil)
    guard case .request(let demand) = action else {
      Issue.record("expected a request, got \(action)")
      return
    }
    #expect(demand == .max(1))
    let second = state.receive(subscription: IgnoredSubscription(), policy: nil)
    guard case .cancel = second else {
      Issue.record("expected the second subscription to be cancelled, got \(second)")
      return
    }
  }

  @Test func buffering_requestsUnlimitedAndAppliesThePolicy() {
    var state = State.awaitingSubscription(waiter: nil)
    let action = state.receive(subscription: IgnoredSubscription(), policy: .bufferingNewest(2))
    guard case .request(let demand) = action else {
      Issue.record("expected a request, got \(action)")
      return
    }
    #expect(demand == .unlimited)
    for value in 1...3 {
      _ = state.receive(value, policy: .bufferingNewest(2))
    }
    let fourth = state.receive(4, policy: .bufferingNewest(2))
    guard case .buffered(let dropped) = fourth else {
      Issue.record("expected the value to be buffered, got \(fourth)")
      return
    }
    #expect(dropped == 2)
    let first = state.next(Waiter(), policy: .bufferingNewest(2))
    #expect(resumed(first) == .some(.success(3)))
    let waiting = state.next(Waiter(), policy: .bufferingNewest(2))
    #expect(resumed(waiting) == .some(.success(4)))
    let empty = state.next(Waiter(), policy: .bufferingNewest(2))
    guard case .wait = empty else {
      Issue.record("expected to wait, got \(empty)")
      return
    }
  }

  @Test func bufferingOldest_keepsTheFirstValues() {
    var state = subscribed(policy: .bufferingOldest(1))
    _ = state.receive(1, policy: .bufferingOldest(1))
    _ = state.receive(2, policy: .bufferingOldest(1))
    let first = state.next(Waiter(), policy: .bufferingOldest(1))
    #expect(resumed(first) == .some(.success(1)))
  }

  @Test func completion_comesAfterTheBufferedValues_once() {
    var state = subscribed(policy: .unbounded)
    _ = state.receive(1, policy: .unbounded)
    let completed = state.receive(completion: .failure(TestError(code: 3)))
    #expect(completed?.waiter == nil)
    #expect(completed?.subscription != nil)
    let late = state.receive(completion: .finished)
    #expect(late == nil)
    let value = state.next(Waiter(), policy: .unbounded)
    #expect(resumed(value) == .some(.success(1)))
    let failure = state.next(Waiter(), policy: .unbounded)
    #expect(resumed(failure) == .some(.failure(TestError(code: 3))))
    let end = state.next(Waiter(), policy: .unbounded)
    #expect(resumed(end) == .some(nil))
  }

  @Test func completion_goesToTheWaiterAtOnce() {
    var state = subscribed(policy: nil)
    let waiter = Waiter()
    _ = state.next(waiter, policy: nil)
    let completed = state.receive(completion: .finished)
    #expect(completed?.waiter === waiter)
    let end = state.next(Waiter(), policy: nil)
    #expect(resumed(end) == .some(nil))
    let value = state.receive(1, policy: nil)
    guard case .ignored = value else {
      Issue.record("expected the value to be ignored, got \(value)")
      return
    }
  }

  @Test func cancel_handsOutTheWaiterTheSubscriptionAndTheBuffer() {
    var state = subscribed(policy: .unbounded)
    _ = state.receive(1, policy: .unbounded)
    let cancelled = state.cancel()
    #expect(cancelled?.subscription != nil)
    #expect(cancelled.map { Array($0.buffer) } == [1])
    let again = state.cancel()
    #expect(again == nil)
    let end = state.next(Waiter(), policy: .unbounded)
    #expect(resumed(end) == .some(nil))
    let action = state.receive(subscription: IgnoredSubscription(), policy: .unbounded)
    guard case .cancel = action else {
      Issue.record("expected the subscription to be cancelled, got \(action)")
      return
    }
  }

  @Test func cancel_whileWaiting_resumesTheWaiter() {
    var state = subscribed(policy: nil)
    let waiter = Waiter()
    _ = state.next(waiter, policy: nil)
    let cancelled = state.cancel()
    #expect(cancelled?.waiter === waiter)
  }
}
