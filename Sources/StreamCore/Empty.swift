/// A publisher that never publishes any values, and optionally finishes immediately.
///
/// ```swift
/// let nothing = Empty<Int, Never>()
/// let cancellable = nothing.sink(
///   receiveCompletion: { print($0) },  // prints "finished"
///   receiveValue: { print($0) }        // never called
/// )
/// ```
///
/// Each subscriber receives ``Subscriptions/empty``, then, if ``completeImmediately`` is `true`,
/// ``Subscribers/Completion/finished``, without waiting for demand. With
/// `completeImmediately: false` it never sends anything else, which is useful as a publisher
/// that never ends. Two empty publishers are equal when ``completeImmediately`` is.
///
/// > Thread safety: A value type; `subscribe` may be called from any thread, and the
/// > completion is delivered on that thread, before `subscribe` returns.
public struct Empty<Output, Failure: Error>: Publisher, Equatable {
  /// A Boolean value that indicates whether the publisher immediately sends a completion.
  public let completeImmediately: Bool

  /// Creates an empty publisher.
  ///
  /// - Parameter completeImmediately: A Boolean value that indicates whether the publisher
  ///   should immediately finish.
  @inlinable
  public init(completeImmediately: Bool = true) {
    self.completeImmediately = completeImmediately
  }

  /// Creates an empty publisher with the given completion behavior and output and failure
  /// types.
  ///
  /// Use this initializer to connect the empty publisher to subscribers or other publishers
  /// that have specific output and failure types.
  ///
  /// - Parameters:
  ///   - completeImmediately: A Boolean value that indicates whether the publisher should
  ///     immediately finish.
  ///   - outputType: The output type exposed by this publisher.
  ///   - failureType: The failure type exposed by this publisher.
  @inlinable
  public init(
    completeImmediately: Bool = true,
    outputType: Output.Type,
    failureType: Failure.Type
  ) {
    self.init(completeImmediately: completeImmediately)
  }

  /// Hands `subscriber` ``Subscriptions/empty``, then finishes it if ``completeImmediately``.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Subscriptions.empty)
    if completeImmediately {
      subscriber.receive(completion: .finished)
    }
  }
}

// Only a `Bool` is stored, so an empty publisher is Sendable whatever its types.
extension Empty: Sendable {}
