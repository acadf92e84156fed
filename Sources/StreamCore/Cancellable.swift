/// A protocol indicating that an activity or action supports cancellation.
///
/// ```swift
/// let cancellable: any Cancellable = subject.sink { print($0) }
/// cancellable.cancel()
/// ```
///
/// Calling ``cancel()`` frees up any allocated resources and stops side effects such as timers
/// and network access. It is idempotent.
///
/// As in Combine, `Cancellable` doesn't refine `Sendable`, so a type of yours with unsynchronised
/// state, such as a subscription class, can adopt it (and ``Subscription``) unchanged. To share a
/// cancellable across threads, wrap it in an ``AnyCancellable``, which is `Sendable`.
///
/// > Thread safety: `cancel()` is safe to call from any thread, any number of times.
public protocol Cancellable {
  /// Cancels the activity.
  func cancel()
}

extension Cancellable {
  /// Stores this cancellable instance, wrapped in an ``AnyCancellable``, in the specified set.
  ///
  /// ```swift
  /// var cancellables = Set<AnyCancellable>()
  /// subscription.store(in: &cancellables)
  /// ```
  ///
  /// - Parameter set: The set in which to store this cancellable.
  public func store(in set: inout Set<AnyCancellable>) {
    AnyCancellable(self).store(in: &set)
  }

  /// Stores this cancellable instance, wrapped in an ``AnyCancellable``, in the specified
  /// collection.
  ///
  /// - Parameter collection: The collection in which to store this cancellable.
  public func store<C: RangeReplaceableCollection>(in collection: inout C)
  where C.Element == AnyCancellable {
    AnyCancellable(self).store(in: &collection)
  }
}
