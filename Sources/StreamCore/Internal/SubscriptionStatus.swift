/// Where a subscription is, as the `status` child of Combine's mirrors shows it:
/// `awaitingSubscription`, `subscribed(<the upstream subscription>)` or `terminal`.
///
/// Only debugger and playground output reads it.
@usableFromInline
package enum SubscriptionStatus {
  /// The upstream has not sent its subscription yet.
  case awaitingSubscription
  /// Subscribed to the upstream, which has not ended.
  case subscribed(any Subscription)
  /// The upstream ended, or the subscription was cancelled.
  case terminal
}
