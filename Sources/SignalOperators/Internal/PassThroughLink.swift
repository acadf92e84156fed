internal import StreamCore

/// The lock-guarded state of a one-to-one operator's subscription: the upstream subscription,
/// the downstream, and the operator's own `Extra` (closures, a coder), all released once the
/// subscription ends.
///
/// ```
/// awaiting --attach--> active --finish / cancel--> terminal
/// ```
///
/// Every method only reads and writes state under the lock and hands back what the caller
/// needs, so the caller calls upstream, downstream and user closures after the lock. What
/// `finish()` and `cancel()` hand back is the last reference the link had; the caller drops it
/// outside the lock.
// Sendable: every stored var is guarded by `lock`; nothing is called while it is held.
final class PassThroughLink<Downstream: Subscriber, Extra>: @unchecked Sendable {
  private enum Phase {
    case awaiting
    case active(any Subscription)
    case terminal
  }

  private let lock = Lock()
  private var phase = Phase.awaiting
  private var downstream: Downstream?
  private var extra: Extra?

  init(downstream: Downstream, extra: Extra) {
    self.downstream = downstream
    self.extra = extra
  }

  /// Takes the first upstream subscription. Returns `nil` for any later one, or once the link
  /// has ended; the caller then cancels `subscription`.
  func attach(_ subscription: any Subscription) -> (Downstream, Extra)? {
    lock.withLock {
      guard case .awaiting = phase, let downstream, let extra else { return nil }
      phase = .active(subscription)
      return (downstream, extra)
    }
  }

  /// The downstream and the extra while the link is active, for delivering a value.
  func delivery() -> (Downstream, Extra)? {
    lock.withLock {
      guard case .active = phase, let downstream, let extra else { return nil }
      return (downstream, extra)
    }
  }

  /// The upstream subscription and the extra while the link is active, for a request.
  func upstream() -> (any Subscription, Extra)? {
    lock.withLock {
      guard case .active(let subscription) = phase, let extra else { return nil }
      return (subscription, extra)
    }
  }

  /// Ends the link for a completion; returns what it held, or `nil` if it had already ended.
  func finish() -> (upstream: (any Subscription)?, downstream: Downstream, extra: Extra)? {
    lock.withLock { () -> ((any Subscription)?, Downstream, Extra)? in
      guard let (upstream, downstream, extra) = takeAll() else { return nil }
      return (upstream, downstream, extra)
    }
  }

  /// Ends the link for a cancel; returns what it held, or `nil` if it had already ended.
  func cancel() -> (upstream: (any Subscription)?, downstream: Downstream, extra: Extra)? {
    finish()
  }

  /// Whether the link has ended.
  var isTerminal: Bool {
    lock.withLock {
      if case .terminal = phase { return true }
      return false
    }
  }

  /// Call under `lock`.
  private func takeAll() -> ((any Subscription)?, Downstream, Extra)? {
    var upstream: (any Subscription)?
    switch phase {
    case .terminal:
      return nil
    case .active(let subscription):
      upstream = subscription
    case .awaiting:
      break
    }
    phase = .terminal
    guard let downstream, let extra else { return nil }
    self.downstream = nil
    self.extra = nil
    return (upstream, downstream, extra)
  }
}
