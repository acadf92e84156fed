/// A publisher that exposes a method for outside callers to publish elements.
///
/// ```swift
/// let subject = PassthroughSubject<Int, Never>()
/// let cancellable = subject.sink { print($0) }
/// subject.send(1)
/// subject.send(completion: .finished)
/// ```
///
/// A subject broadcasts values to its subscribers. ``send(subscription:)`` lets it act as a
/// subscriber of an upstream publisher; see ``Publisher/subscribe(_:)->AnyCancellable``.
///
/// > Thread safety: ``send(_:)``, ``send(completion:)`` and ``send(subscription:)`` may be
/// > called from any thread; see ``PassthroughSubject`` and ``CurrentValueSubject`` for how
/// > StreamCore's subjects order concurrent sends.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
  /// Sends a value to the subscribers.
  ///
  /// - Parameter value: The value to send.
  func send(_ value: Output)

  /// Sends a completion signal to the subscribers.
  ///
  /// - Parameter completion: A completion instance which indicates normal completion, or
  ///   failure with an error.
  func send(completion: Subscribers.Completion<Failure>)

  /// Provides this subject a subscription of an upstream publisher.
  ///
  /// - Parameter subscription: The subscription instance through which the subject can
  ///   request elements.
  func send(subscription: any Subscription)
}

extension Subject where Output == Void {
  /// Sends a void value to the subscribers.
  @inlinable
  public func send() {
    send(())
  }
}
