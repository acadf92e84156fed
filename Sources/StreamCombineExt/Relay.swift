import SignalOperators
public import StreamCore

/// A publisher that outside code feeds with ``accept(_:)``, and that never fails or finishes
/// while it exists.
///
/// ```swift
/// let taps = PassthroughRelay<Int>()
/// let cancellable = taps.sink { print($0) }
/// taps.accept(1)  // 1
/// ```
///
/// A relay is a subject without `send(completion:)`: its subscribers see values only, and a
/// `.finished` when the relay itself goes away. ``PassthroughRelay`` and ``CurrentValueRelay``
/// are the two relays, built on `PassthroughSubject` and `CurrentValueSubject`.
///
/// > Thread safety: Both relays accept values and subscribers from any thread, as their
/// > subjects do; a conforming type should too.
public protocol Relay: Publisher where Failure == Never {
  /// Sends `value` to the relay's subscribers.
  ///
  /// > Thread safety: Safe from any thread, as the underlying subject's `send(_:)`.
  ///
  /// - Parameter value: The value to relay.
  func accept(_ value: Output)

  /// Feeds the values of `publisher` into this relay, until the returned token is cancelled or
  /// `publisher` completes. The completion does not end the relay.
  ///
  /// > Thread safety: Safe from any thread; values are relayed on the publisher's thread.
  ///
  /// - Parameter publisher: A publisher that never fails, of the relay's output.
  /// - Returns: A token that cancels the subscription to `publisher`.
  func subscribe<P: Publisher>(_ publisher: P) -> AnyCancellable
  where P.Failure == Failure, P.Output == Output
}

extension Publisher where Failure == Never {
  /// Feeds this publisher's values into `relay`; the completion does not end the relay.
  ///
  /// ```swift
  /// let relay = PassthroughRelay<Int>()
  /// let cancellable = [1, 2].publisher.subscribe(relay)  // relay accepts 1, then 2
  /// ```
  ///
  /// The same as `relay.subscribe(self)`.
  ///
  /// > Thread safety: Safe from any thread; values are relayed on this publisher's thread.
  ///
  /// - Parameter relay: The relay that accepts the values.
  /// - Returns: A token that cancels the subscription to this publisher.
  public func subscribe<R: Relay>(_ relay: R) -> AnyCancellable where R.Output == Output {
    relay.subscribe(self)
  }
}

extension Relay where Output == Void {
  /// Sends `()` to the relay's subscribers.
  ///
  /// ```swift
  /// let refresh = PassthroughRelay<Void>()
  /// refresh.accept()
  /// ```
  ///
  /// > Thread safety: As ``Relay/accept(_:)``.
  public func accept() {
    accept(())
  }
}

/// The subscriber through which a relay takes in another publisher's values.
///
/// It requests `.unlimited`, hands each value to `accept` (which reaches the relay weakly, so the
/// relay is not kept alive by what it is subscribed to), drops the completion, and lets go of the
/// upstream subscription when the upstream completes, the token is cancelled, or the relay is gone.
// Sendable: `upstream` is guarded by `lock`; `accept` is only read, and called outside the lock.
final class RelayInlet<Input>: Subscriber, Cancellable, CustomStringConvertible,
  @unchecked Sendable
{
  typealias Failure = Never

  private enum State {
    case awaitingSubscription
    case subscribed(any Subscription)
    case terminal
  }

  private let lock = Lock()
  private var state = State.awaitingSubscription
  /// Relays a value; `false` once the relay is gone.
  private let accept: (Input) -> Bool

  init(accept: @escaping (Input) -> Bool) {
    self.accept = accept
  }

  var description: String { "Relay" }

  func receive(subscription: any Subscription) {
    let taken = lock.withLock { () -> Bool in
      guard case .awaitingSubscription = state else { return false }
      state = .subscribed(subscription)
      return true
    }
    guard taken else {
      subscription.cancel()
      return
    }
    subscription.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let live = lock.withLock { () -> Bool in
      if case .subscribed = state { return true }
      return false
    }
    if live, !accept(input) { cancel() }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    let released = end()
    _ = released  // released after the lock; not cancelled, it has completed
  }

  func cancel() {
    end()?.cancel()
  }

  /// Becomes terminal; returns the upstream subscription, if there was one.
  private func end() -> (any Subscription)? {
    lock.withLock {
      defer { state = .terminal }
      guard case .subscribed(let subscription) = state else { return nil }
      return subscription
    }
  }
}
