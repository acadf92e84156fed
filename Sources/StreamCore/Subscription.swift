/// A protocol representing the connection of a subscriber to a publisher.
///
/// ```swift
/// func receive(subscription: any Subscription) {
///   subscription.request(.max(1))
/// }
/// ```
///
/// Requesting ``Subscribers/Demand/none`` is a programming error and traps. Cancelling frees
/// the resources the subscription holds; it is idempotent, and after it no value or completion
/// is delivered.
///
/// > Thread safety: `request(_:)` and `cancel()` may be called from any thread, and from inside
/// > the subscriber's own `receive` methods.
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
  /// Tells a publisher that it may send more values to the subscriber.
  ///
  /// - Parameter demand: How many more values the subscriber wants; must be greater than zero.
  func request(_ demand: Subscribers.Demand)
}

/// A namespace for symbols related to subscriptions.
///
/// ```swift
/// let subscription: any Subscription = Subscriptions.empty
/// subscription.cancel()  // does nothing
/// ```
///
/// > Thread safety: ``empty`` is one shared, stateless instance, safe to use from any thread.
public enum Subscriptions {
  /// A subscription that does nothing when requested or cancelled.
  ///
  /// ```swift
  /// subscriber.receive(subscription: Subscriptions.empty)
  /// subscriber.receive(completion: .finished)
  /// ```
  ///
  /// Publishers that complete at once, such as ``Empty`` and ``Fail``, hand it to their
  /// subscribers. Its description is `"Empty"`.
  public static var empty: any Subscription {
    EmptySubscription.shared
  }
}

/// The subscription behind ``Subscriptions/empty``.
final class EmptySubscription: Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, Sendable
{
  static let shared = EmptySubscription()

  let combineIdentifier = CombineIdentifier()

  private init() {}

  func request(_ demand: Subscribers.Demand) {}  // Combine's ignores even request(.none)

  func cancel() {}

  var description: String { "Empty" }

  var customMirror: Mirror { Mirror(self, children: [:]) }

  var playgroundDescription: Any { description }
}
