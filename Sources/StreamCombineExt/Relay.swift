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
  /// `publisher` is asked for values once one of the relay's subscribers has demand, as a
  /// subject asks the publishers it is subscribed to.
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
/// It hands itself to the relay's subject as an upstream subscription, so the publisher is asked
/// for `.unlimited` once one of the relay's subscribers has demand (at once if one already
/// had), as a Combine subject asks the publishers it is subscribed to: what the publisher sends
/// first (a current value) reaches the relay's subscribers instead of being lost before they
/// come, as in CombineExt, whose relays are subjects inside. Each value goes to the subject,
/// reached weakly (the relay is not kept alive by what it is subscribed to); the completion is
/// dropped. The upstream subscription is let go of when the upstream completes, the token is
/// cancelled, or the relay goes away (its subject cancels its upstreams then).
// Sendable: `state` is guarded by `lock`; `target` is a weak reference written only in `init`;
// the upstream and the subject are called outside the lock.
final class RelayInlet<Target: Subject & UpstreamReleasingSubject>: Subscriber, Subscription,
  CustomStringConvertible, @unchecked Sendable
where Target.Failure == Never {
  typealias Input = Target.Output
  typealias Failure = Never

  private enum State {
    case awaitingSubscription
    case subscribed(any Subscription)
    case terminal
  }

  private let lock = Lock()
  private var state = State.awaitingSubscription
  /// The relay's subject; `nil` once the relay is gone.
  private weak var target: Target?

  init(_ target: Target) {
    self.target = target
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
    guard let target else {
      cancel()
      return
    }
    target.send(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let live = lock.withLock { () -> Bool in
      if case .subscribed = state { return true }
      return false
    }
    guard live else { return .none }
    if let target {
      target.send(input)
    } else {
      cancel()
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    let released = end()
    target?.releaseUpstream(self)
    _ = released  // released after the lock; not cancelled, it has completed
  }

  /// Called by the relay's subject, with `.unlimited`, once one of its subscribers has demand.
  func request(_ demand: Subscribers.Demand) {
    let upstream = lock.withLock { () -> (any Subscription)? in
      guard case .subscribed(let upstream) = state else { return nil }
      return upstream
    }
    upstream?.request(demand)
  }

  func cancel() {
    end()?.cancel()
    target?.releaseUpstream(self)
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
