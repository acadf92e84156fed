import FutureKit
import SignalOperators
import StreamCore

/// The subscriber behind `assign(to:onWeak:)`, `assign(to:onUnowned:)` and the `invoke`
/// variants: requests unlimited values and hands each to `deliver`, which returns `false` once
/// its target is gone; the subscription is then cancelled.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> subscribed
/// subscribed --completion / cancel() / target gone--> closed (subscription and deliver released)
/// ```
// `deliver` is only called by the upstream, which never calls a subscriber from two threads.
// Sendable: `state` is guarded by `lock`; `deliver` and the subscription are called outside it.
final class TargetSink<Input>: Subscriber, Cancellable, CustomStringConvertible,
  @unchecked Sendable
{
  typealias Failure = Never

  private enum State {
    case awaitingSubscription((Input) -> Bool)
    case subscribed(any Subscription, (Input) -> Bool)
    case closed
  }

  private let lock = Lock()
  private var state: State
  let description: String

  /// - Parameters:
  ///   - description: What the subscriber is called in descriptions.
  ///   - deliver: Delivers a value; returns `false` when the target is gone.
  init(description: String, deliver: @escaping (Input) -> Bool) {
    self.description = description
    self.state = .awaitingSubscription(deliver)
  }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Bool in
      guard case .awaitingSubscription(let deliver) = state else { return false }
      state = .subscribed(subscription, deliver)
      return true
    }
    if accepted {
      subscription.request(.unlimited)
    } else {
      subscription.cancel()
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let deliver = lock.withLock { () -> ((Input) -> Bool)? in
      guard case .subscribed(_, let deliver) = state else { return nil }
      return deliver
    }
    if let deliver, !deliver(input) {
      cancel()
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    let released = lock.withLock { () -> State in
      defer { state = .closed }
      return state
    }
    _ = released  // released after the lock
  }

  func cancel() {
    let released = lock.withLock { () -> State in
      defer { state = .closed }
      return state
    }
    if case .subscribed(let subscription, _) = released {
      subscription.cancel()
    }
  }
}
