public import StreamCore

/// The lock-guarded state of a one-to-one operator's subscription: the upstream subscription,
/// the downstream, and the operator's own `Extra` (closures, a coder), all released once the
/// subscription ends.
///
/// Every method is one ``PassThroughState`` transition under the lock and hands back what the
/// caller needs, so the caller calls upstream, downstream and user closures after the lock.
/// What `finish()` and `cancel()` hand back is the last reference the link had; the caller drops
/// it outside the lock.
///
/// `delivery()`, the per-value call, is `@inlinable` so that an operator specialised in the
/// client (`multicast`'s and `autoconnect`'s subscriptions) delivers without generic code.
// Sendable: `state` is guarded by `lock`; nothing is called while it is held.
@usableFromInline
package final class PassThroughLink<Downstream: Subscriber, Extra>: @unchecked Sendable {
  @usableFromInline
  package typealias State = PassThroughState<Downstream, Extra>

  @usableFromInline
  package let lock = Lock()
  @usableFromInline
  @exclusivity(unchecked) package var state: State

  @usableFromInline
  package init(downstream: Downstream, extra: Extra) {
    state = .awaiting(State.Delivery(downstream: downstream, extra: extra))
  }

  /// Takes the first upstream subscription. Returns `nil` for any later one, or once the link
  /// has ended; the caller then cancels `subscription`.
  package func attach(_ subscription: any Subscription) -> State.Delivery? {
    lock.withLock { state.attach(subscription) }
  }

  /// The downstream and the extra while the link is active, for delivering a value.
  @inlinable
  package func delivery() -> State.Delivery? {
    lock.withLock { state.delivery }
  }

  /// The upstream subscription and the extra while the link is active, for a request.
  package func upstream() -> State.Upstream? {
    lock.withLock { state.upstream }
  }

  /// Ends the link for a completion; returns what it held, or `nil` if it had already ended.
  package func finish() -> State.Ended? {
    lock.withLock { state.end() }
  }

  /// Ends the link for a cancel; returns what it held, or `nil` if it had already ended.
  package func cancel() -> State.Ended? {
    finish()
  }

  /// Whether the link has ended.
  package var isTerminal: Bool {
    lock.withLock { state.isTerminal }
  }

  /// Combine's mirror of a one-to-one subscription: the `downstream` (`nil` once released),
  /// whether it has `finished` (completed or cancelled), and the `upstreamSubscription`.
  package func mirror(of subject: Any) -> Mirror {
    let (downstream, upstream, ended) = lock.withLock {
      () -> (Downstream?, (any Subscription)?, Bool) in
      switch state {
      case .awaiting(let delivery): (delivery.downstream, nil, false)
      case .active(let subscription, let delivery): (delivery.downstream, subscription, false)
      case .terminal: (nil, nil, true)
      }
    }
    return oneToOneMirror(subject, downstream: downstream, finished: ended, upstream: upstream)
  }
}

/// Combine's mirror of a one-to-one subscription, for the operators that keep their own state:
/// the `downstream` (`nil` once released), whether it has `finished` (completed or cancelled),
/// and the `upstreamSubscription`.
package func oneToOneMirror(
  _ subject: Any,
  downstream: Any?,
  finished: Bool,
  upstream: (any Subscription)?
) -> Mirror {
  Mirror(
    subject,
    children: [
      "downstream": downstream.map { $0 as Any } ?? (Any?.none as Any), "finished": finished,
      "upstreamSubscription": upstream as Any,
    ]
  )
}

/// The state of a ``PassThroughLink``, as data: each transition runs under the link's lock and
/// returns what the caller needs after it.
///
/// ```
/// awaiting --attach--> active --end (finish / cancel)--> terminal
/// awaiting --end (cancel)--> terminal
/// ```
@usableFromInline
package enum PassThroughState<Downstream, Extra> {
  /// Before the upstream's subscription arrives.
  case awaiting(Delivery)
  /// Subscribed to the upstream.
  case active(any Subscription, Delivery)
  /// Completed or cancelled: nothing is held.
  case terminal

  /// Where a value goes: the subscriber, and the operator's extra.
  @usableFromInline
  package struct Delivery {
    /// The subscriber.
    @usableFromInline
    let downstream: Downstream
    /// The operator's own closures or coder.
    @usableFromInline
    let extra: Extra

    @usableFromInline
    init(downstream: Downstream, extra: Extra) {
      self.downstream = downstream
      self.extra = extra
    }
  }

  /// Where a request goes: the upstream's subscription, and the operator's extra.
  package struct Upstream {
    /// The upstream's subscription.
    let subscription: any Subscription
    /// The operator's own closures or coder.
    let extra: Extra
  }

  /// What ending the link lets go of, after the lock.
  package struct Ended {
    /// The upstream's subscription, if it had arrived.
    let upstream: (any Subscription)?
    /// The subscriber.
    let downstream: Downstream
    /// The operator's own closures or coder.
    let extra: Extra
  }

  /// Stores the first upstream subscription; `nil` for a later one or once ended.
  package mutating func attach(_ subscription: any Subscription) -> Delivery? {
    guard case .awaiting(let delivery) = self else { return nil }
    self = .active(subscription, delivery)
    return delivery
  }

  /// The subscriber and the extra, while active.
  @inlinable
  package var delivery: Delivery? {
    guard case .active(_, let delivery) = self else { return nil }
    return delivery
  }

  /// The upstream's subscription and the extra, while active.
  package var upstream: Upstream? {
    guard case .active(let subscription, let delivery) = self else { return nil }
    return Upstream(subscription: subscription, extra: delivery.extra)
  }

  /// Whether the link has ended.
  package var isTerminal: Bool {
    if case .terminal = self { return true }
    return false
  }

  /// Ends the link; returns what it held, or `nil` if it had already ended.
  package mutating func end() -> Ended? {
    switch self {
    case .awaiting(let delivery):
      self = .terminal
      return Ended(upstream: nil, downstream: delivery.downstream, extra: delivery.extra)
    case .active(let subscription, let delivery):
      self = .terminal
      return Ended(upstream: subscription, downstream: delivery.downstream, extra: delivery.extra)
    case .terminal:
      return nil
    }
  }
}
