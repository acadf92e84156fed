import StreamCore

/// How the subscriber of `drop(untilOutputFrom:)`/`prefix(untilOutputFrom:)` attached to the
/// other publisher reaches the operator's subscription (`Owner`): strongly while the
/// subscription is live, as in Combine, and not at all once it has ended.
///
/// As Combine's, those operators let go of the other publisher's subscription after its value
/// without cancelling it (it was asked for one value), so the other publisher may keep its
/// subscriber for as long as it lives; cutting the link when the subscription ends keeps that
/// from keeping the subscription, its subscriber and their closures alive too.
// Sendable: `owner` is guarded by the lock.
@usableFromInline
package final class SideLink<Owner: AnyObject>: @unchecked Sendable {
  private let lock = Lock()
  private var linked: Owner?

  package init() {}

  /// Links `owner`, once it exists.
  package func attach(_ owner: Owner) {
    let replaced = lock.withLock { () -> Owner? in
      defer { linked = owner }
      return linked.take()
    }
    _ = replaced  // nil: attached once, before anything can cut it
  }

  /// The owner, or `nil` once the link was cut.
  package var owner: Owner? {
    lock.withLock { linked }
  }

  /// Cuts the link; the owner is released after the lock.
  package func cut() {
    let released = lock.withLock { linked.take() }
    _ = released
  }
}
