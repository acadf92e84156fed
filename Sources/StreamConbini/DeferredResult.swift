import FutureKit
import SignalOperators
public import StreamCore

/// A publisher that runs a closure when a subscriber first asks for a value, then sends the
/// success value and finishes, or fails, as the `Result` it returns says.
///
/// ```swift
/// let user = DeferredResult<User, LookupError> {
///   guard let user = cache[id] else { return .failure(.notFound) }
///   return .success(user)
/// }
/// ```
///
/// ``closure`` runs once per subscription, synchronously inside the subscriber's first
/// `request(_:)` with positive demand, on the thread that makes that request; every new
/// subscriber runs it again. Subscribing runs nothing, and a subscription cancelled before its
/// first request never runs the closure. `.success` sends the value, followed at once by
/// `.finished` (unless the subscriber cancels from inside
/// `receive(_:)`); `.failure` sends the error as the completion, without a value. Its
/// subscription's description is `"DeferredResult"`.
///
/// > Thread safety: A `Sendable` value type; `subscribe` may be called from any thread. The
/// > closure is `@Sendable`: a subscription's first request may come from any thread, so two
/// > subscriptions of one publisher can run it at the same time. `request(_:)` and `cancel()`
/// > are safe from any thread, and no lock is held while the closure or the subscriber runs.
public struct DeferredResult<Output, Failure: Error>: Publisher {
  /// The closure that produces the result, run once per subscription.
  public let closure: @Sendable () -> Result<Output, Failure>

  /// Creates a publisher that sends the outcome of the `Result` that `closure` returns.
  ///
  /// ```swift
  /// let parsed = DeferredResult { Result { try parse(text) }.mapError(ParseError.init) }
  /// ```
  ///
  /// - Parameter closure: Produces the result; runs on each subscription's first positive
  ///   request.
  public init(closure: @escaping @Sendable () -> Result<Output, Failure>) {
    self.closure = closure
  }

  /// Hands `subscriber` a subscription that runs ``closure`` on its first positive request.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    attach(subscriber)
  }
}

extension DeferredResult: Sendable {}

extension DeferredResult: DeferredOneShot {
  static var subscriptionName: StaticString { "DeferredResult" }

  func makeOutcome() -> DeferredOutcome<Output, Failure> {
    switch closure() {
    case .success(let value): .value(value)
    case .failure(let error): .completion(.failure(error))
    }
  }
}
