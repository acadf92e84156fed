import FutureKit
import SignalOperators
public import StreamCore

/// A publisher that sends no values: when a subscriber first asks for a value it runs a
/// throwing closure, then finishes, or fails with the error thrown.
///
/// ```swift
/// let migrate = DeferredTryComplete<Never> { try database.migrate() }
/// let cancellable = migrate.sink(
///   receiveCompletion: { print($0) },  // "finished" or "failure(…)"
///   receiveValue: { _ in }
/// )
/// ```
///
/// ``closure`` runs once per subscription, synchronously inside the subscriber's first
/// `request(_:)` with positive demand, on the thread that makes that request; every new
/// subscriber runs it again. Subscribing runs nothing, and a subscription cancelled before its
/// first request never runs the closure. Even ``init(output:)``, which has nothing to run,
/// waits for that first request before it finishes. Returning sends
/// `.finished`; throwing sends `.failure` with the error,
/// whose concrete type is lost: ``Failure`` is `any Error`. Its subscription's description is
/// `"DeferredTryComplete"`.
///
/// > Thread safety: A `Sendable` value type; `subscribe` may be called from any thread. The
/// > closure is `@Sendable`: a subscription's first request may come from any thread, so two
/// > subscriptions of one publisher can run it at the same time. `request(_:)` and `cancel()`
/// > are safe from any thread, and no lock is held while the closure or the subscriber runs.
public struct DeferredTryComplete<Output>: Publisher {
  /// The kind of errors this publisher might publish: whatever ``closure`` throws.
  public typealias Failure = any Error

  /// The closure run once per subscription: returning finishes, throwing fails.
  public let closure: @Sendable () throws -> Void

  /// Creates a publisher that finishes, without a value, on each subscription's first positive
  /// request.
  ///
  /// ```swift
  /// let done = DeferredTryComplete<Int>()
  /// ```
  ///
  /// - Parameter output: The output type, for type inference; the publisher sends no values.
  public init(output: Output.Type = Output.self) {
    closure = {}
  }

  /// Creates a publisher that runs `closure` on each subscription's first positive request,
  /// then finishes if it returns and fails with the error if it throws.
  ///
  /// ```swift
  /// let flush = DeferredTryComplete(output: Int.self) { try log.flush() }
  /// ```
  ///
  /// - Parameters:
  ///   - output: The output type, for type inference; the publisher sends no values.
  ///   - closure: Returns to finish or throws to fail.
  public init(output: Output.Type = Output.self, closure: @escaping @Sendable () throws -> Void) {
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

extension DeferredTryComplete: Sendable {}

extension DeferredTryComplete: DeferredOneShot {
  static var subscriptionName: StaticString { "DeferredTryComplete" }

  func makeOutcome() -> DeferredOutcome<Output, Failure> {
    do {
      try closure()
      return .completion(.finished)
    } catch {
      return .completion(.failure(error))
    }
  }
}
