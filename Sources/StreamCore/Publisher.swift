/// Declares that a type can send a sequence of values over time.
///
/// ```swift
/// let cancellable = [1, 2, 3].publisher
///   .sink { print($0) }
/// ```
///
/// A publisher delivers values to one or more ``Subscriber`` instances. It sends a subscriber
/// nothing before handing it a ``Subscription``, never more values than the subscriber has
/// requested through that subscription, at most one completion, and nothing after the
/// completion or after the subscription is cancelled.
///
/// Implement ``receive(subscriber:)`` to support a new publisher; call
/// ``subscribe(_:)->()`` to attach a subscriber.
///
/// > Thread safety: Publishers are values that describe work; `subscribe` may be called from any
/// > thread. Each publisher type states on which thread it delivers.
public protocol Publisher<Output, Failure>: SendableMetatype {
  /// The kind of values published by this publisher.
  associatedtype Output

  /// The kind of errors this publisher might publish. Use `Never` if it can't fail.
  associatedtype Failure: Error

  /// Attaches the specified subscriber to this publisher.
  ///
  /// Implementations must call the subscriber's `receive(subscription:)` first.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
  /// Attaches the specified subscriber to this publisher.
  ///
  /// ```swift
  /// let subscriber = MySubscriber()
  /// [1, 2, 3].publisher.subscribe(subscriber)
  /// ```
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher, after which it can
  ///   receive values.
  @inlinable
  public func subscribe<S: Subscriber>(_ subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    receive(subscriber: subscriber)
  }
}
