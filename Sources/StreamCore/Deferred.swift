/// A publisher that awaits subscription before running the supplied closure to create a
/// publisher for the new subscriber.
///
/// ```swift
/// let now = Deferred { Just(ContinuousClock.now) }
/// let cancellable = now.sink { print("subscribed at", $0) }
/// ```
///
/// ``createPublisher`` runs once per subscriber, at subscription time, and the subscriber is
/// attached to the publisher it returns; nothing runs until someone subscribes.
///
/// > Thread safety: ``createPublisher`` runs on the thread that calls `subscribe`; the created
/// > publisher's guarantees apply from then on. `Deferred` is not `Sendable`, because its
/// > closure isn't required to be.
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
  /// The kind of values published by this publisher.
  public typealias Output = DeferredPublisher.Output

  /// The kind of errors this publisher might publish.
  public typealias Failure = DeferredPublisher.Failure

  /// The closure to execute when this deferred publisher receives a subscription.
  ///
  /// The publisher returned by this closure immediately receives the incoming subscription.
  public let createPublisher: () -> DeferredPublisher

  /// Creates a deferred publisher.
  ///
  /// - Parameter createPublisher: The closure to execute when calling `subscribe(_:)`.
  public init(createPublisher: @escaping () -> DeferredPublisher) {
    self.createPublisher = createPublisher
  }

  /// Creates a new publisher with ``createPublisher`` and attaches `subscriber` to it.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    createPublisher().subscribe(subscriber)
  }
}
