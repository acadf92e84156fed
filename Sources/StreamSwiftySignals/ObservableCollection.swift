public import StreamCore
internal import StreamSnail

/// SwiftySignals' `ObservableCollection`: a bag of subscriptions released all at once.
///
/// ```swift
/// let observables = ObservableCollection()
/// signal.sink { print($0) }.append(to: observables)
/// observables.releaseAll()  // cancels the subscription
/// ```
///
/// The same idea as Snail's `Disposer` under SwiftySignals' names: ``releaseAll()`` cancels every
/// subscription it holds, once, in the order they were appended, and empties the collection,
/// which stays usable. Releasing the collection cancels what it still holds. It keeps the
/// subscription tokens, which own their chains, where SwiftySignals kept the last observable.
///
/// > Thread safety: `append` and ``releaseAll()`` may be called from any thread; the
/// > cancellations run outside the collection's lock, on the releasing thread.
public final class ObservableCollection: Sendable {
  private let disposer = Disposer()

  /// Creates an empty collection.
  public init() {}

  /// Keeps `cancellable` until ``releaseAll()`` or until the collection is released.
  ///
  /// ```swift
  /// observables.append(subject.sink { print($0) })
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter cancellable: The subscription to keep, and cancel later.
  public func append(_ cancellable: any Cancellable) {
    disposer.add(cancellable: cancellable)
  }

  /// Cancels every subscription the collection holds and empties it.
  ///
  /// > Thread safety: Safe from any thread; each subscription is cancelled exactly once.
  public func releaseAll() {
    disposer.disposeAll()
  }
}

extension Cancellable {
  /// Keeps this subscription in `collection`, SwiftySignals' `EndPoint.append(to:)`.
  ///
  /// ```swift
  /// property.sink { print($0) }.append(to: observables)
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter collection: The collection that keeps, and later cancels, this subscription.
  public func append(to collection: ObservableCollection) {
    collection.append(self)
  }
}

extension Publisher where Failure == Never {
  /// Subscribes to this chain and keeps the subscription in `collection`, as SwiftySignals'
  /// `EndPoint.append(to:)` ends a modifier chain.
  ///
  /// ```swift
  /// signal.fired.then { print($0) }.append(to: observables)
  /// ```
  ///
  /// It is `sink { _ in }` (unlimited demand) with the token appended to `collection`: the chain
  /// lives until ``ObservableCollection/releaseAll()``, until the collection is released, or
  /// until the publisher finishes.
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter collection: The collection that keeps, and later cancels, the subscription.
  public func append(to collection: ObservableCollection) {
    collection.append(sink { _ in })
  }
}
