/// A publisher that immediately terminates with the specified error.
///
/// ```swift
/// let failing = Fail<Int, TimeoutError>(error: TimeoutError())
/// let cancellable = failing.sink(
///   receiveCompletion: { print($0) },  // prints "failure(TimeoutError())"
///   receiveValue: { print($0) }        // never called
/// )
/// ```
///
/// Each subscriber receives ``Subscriptions/empty``, then
/// ``Subscribers/Completion/failure(_:)`` with ``error``, without waiting for demand.
///
/// > Thread safety: A value type; `subscribe` may be called from any thread, and the failure
/// > is delivered on that thread, before `subscribe` returns.
public struct Fail<Output, Failure: Error>: Publisher {
  /// The failure to send when terminating the publisher.
  public let error: Failure

  /// Creates a publisher that immediately terminates with the specified failure.
  ///
  /// - Parameter error: The failure to send when terminating the publisher.
  @inlinable
  public init(error: Failure) {
    self.error = error
  }

  /// Creates a publisher with the given output type, that immediately terminates with the
  /// specified failure.
  ///
  /// Use this initializer to create a `Fail` publisher that can work with subscribers or
  /// publishers that expect a given output type.
  ///
  /// - Parameters:
  ///   - outputType: The output type exposed by this publisher.
  ///   - failure: The failure to send when terminating the publisher.
  @inlinable
  public init(outputType: Output.Type, failure: Failure) {
    self.init(error: failure)
  }

  /// Hands `subscriber` ``Subscriptions/empty``, then fails it with ``error``.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .failure(error))
  }
}

extension Fail: Equatable where Failure: Equatable {}

// Only the error is stored, and `Error` refines `Sendable`.
extension Fail: Sendable {}
