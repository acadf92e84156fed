/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// ```swift
/// let cancellable = Just(42).sink { print($0) }  // prints 42
/// ```
///
/// Each subscriber receives its own subscription. The value is sent on the subscriber's first
/// request, followed at once by ``Subscribers/Completion/finished``. Nothing is sent if the
/// subscription is cancelled first, and no completion if it is cancelled from inside
/// `receive(_:)`. A `Just` can't fail. Its subscription's description is `"Just"`.
///
/// > Thread safety: A value type; `subscribe` may be called from any thread. The value and the
/// > completion are delivered on the thread that makes the first request. `request(_:)` and
/// > `cancel()` are safe from any thread.
public struct Just<Output>: Publisher {
  /// The kind of errors this publisher might publish.
  public typealias Failure = Never

  /// The one element that the publisher emits.
  public let output: Output

  /// Initializes a publisher that emits the specified output just once.
  ///
  /// - Parameter output: The one element that the publisher emits.
  @inlinable
  public init(_ output: Output) {
    self.output = output
  }

  /// Hands `subscriber` a subscription that sends the output on its first request.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    subscribeSingleValue(subscriber, output: output, name: "Just")
  }
}

extension Just: Equatable where Output: Equatable {}

extension Just: Sendable where Output: Sendable {}
