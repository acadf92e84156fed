import StreamCore

/// A subscription that only records what it was asked, for the thread-free state tests (which
/// perform a transition's actions themselves).
// Sendable: used on one thread only.
final class SubscriptionProbe: Subscription, @unchecked Sendable {
  /// Every demand requested, in order.
  private(set) var requested: [Subscribers.Demand] = []
  /// Whether `cancel()` was called.
  private(set) var cancelled = false

  func request(_ demand: Subscribers.Demand) { requested.append(demand) }

  func cancel() { cancelled = true }

  /// Whether `subscription` is this probe.
  func isSame(as subscription: (any Subscription)?) -> Bool {
    guard let subscription else { return false }
    return (subscription as AnyObject) === self
  }
}
