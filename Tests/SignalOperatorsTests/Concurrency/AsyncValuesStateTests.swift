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

/// Whether `waiters` holds exactly `expected`, in order.
private func same(_ waiters: RingBuffer<Waiter>?, _ expected: [Waiter]) -> Bool {
  guard let waiters else { return false }
  return waiters.elementsEqual(expected, by: ===)
}

/// A subscribed state.
private func subscribed(policy: ValuesBuffering?) -> State {
  var state = State.awaitingSubscription(.init())
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
    let unasked = state.receive(2, policy: nil)  // nobody asked: the upstream broke its demand
    guard case .unrequested = unasked else {
      Issue.record("expected the value to be unrequested, got \(unasked)")
      return
    }
  }

  @Test func severalWaiters_eachRequestsOne_andValuesGoInTheOrderTheyCalled() {
    var state = subscribed(policy: nil)
    let waiters = [Waiter(), Waiter(), Waiter()]
    for waiter in waiters {
      #expect(requests(state.next(waiter, policy: nil)))
    }
    for (value, waiter) in zip(1..., waiters) {
      let received = state.receive(value, policy: nil)
      guard case .resume(let resumedWaiter) = received else {
        Issue.record("expected a waiter to be resumed, got \(received)")
        return
      }
      #expect(resumedWaiter === waiter)
    }
  }

  @Test func waitersBeforeTheSubscription_areRequestedTogetherOnArrival() {
    var state = State.awaitingSubscription(.init())
    for _ in 1...3 {
      #expect(!requests(state.next(Waiter(), policy: nil)))
    }
    let action = state.receive(subscription: IgnoredSubscription(), policy: nil)
    guard case .request(let demand) = action else {
      Issue.record("expected a request, got \(action)")
      return
    }
    #expect(demand == .max(3))
  }

  @Test func valueBeforeTheSubscription_endsTheWaiters_butTheirDemandStays() {
    var state = State.awaitingSubscription(.init())
    let waiters = [Waiter(), Waiter()]
    for waiter in waiters { _ = state.next(waiter, policy: nil) }
    #expect(same(state.receive(7, policy: nil).endedWaiters, waiters))
    #expect(state.receive(8, policy: nil).endedWaiters == nil)  // nobody left to end
    let action = state.receive(subscription: IgnoredSubscription(), policy: nil)
    guard case .request(let demand) = action else {
      Issue.record("expected a request, got \(action)")
      return
    }
    #expect(demand == .max(2))
  }

  @Test func completionAndCancel_handOutEveryWaiter() {
    var finished = subscribed(policy: nil)
    let first = [Waiter(), Waiter()]
    for waiter in first { _ = finished.next(waiter, policy: nil) }
    let completed = finished.receive(completion: .finished)
    #expect(same(completed?.waiters, first))
    var cancelled = State.awaitingSubscription(.init())
    let second = [Waiter(), Waiter()]
    for waiter in second { _ = cancelled.next(waiter, policy: nil) }
    #expect(same(cancelled.cancel()?.waiters, second))
  }

  @Test func waiterBeforeTheSubscription_isAskedForOnArrival() {
    var state = State.awaitingSubscription(.init())
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
    var state = State.awaitingSubscription(.init())
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
    #expect(completed?.waiters.isEmpty == true)
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
    #expect(same(completed?.waiters, [waiter]))
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
    #expect(same(cancelled?.waiters, [waiter]))
  }
}

extension State.Received {
  /// The waiters a `.endWaiters` action ends, or `nil` for another action.
  fileprivate var endedWaiters: RingBuffer<Waiter>? {
    if case .endWaiters(let waiters) = self { return waiters }
    return nil
  }
}
