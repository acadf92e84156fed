import FutureKit
import SignalOperators
public import StreamCore

/// A publisher that sends no values: when a subscriber first asks for a value it runs a closure,
/// then finishes, or fails with the error the closure returns.
///
/// ```swift
/// let save = DeferredComplete<Never, SaveError> { store.write(document) }  // nil on success
/// let cancellable = save.sink(
///   receiveCompletion: { print($0) },  // "finished" or "failure(…)"
///   receiveValue: { _ in }
/// )
/// ```
///
/// ``closure`` runs once per subscription, synchronously inside the subscriber's first
/// `request(_:)` with positive demand, on the thread that makes that request; every new
/// subscriber runs it again. Subscribing runs nothing, and a subscription cancelled before its
/// first request never runs the closure. Even ``init()``, which has nothing to compute, waits
/// for that first request before it finishes (unlike `Empty`, which completes on subscription).
/// `nil` sends `.finished`; an error sends `.failure`. Its
/// subscription's description is `"DeferredComplete"`.
///
/// > Thread safety: A `Sendable` value type; `subscribe` may be called from any thread. The
/// > closure is `@Sendable`: a subscription's first request may come from any thread, so two
/// > subscriptions of one publisher can run it at the same time. `request(_:)` and `cancel()`
/// > are safe from any thread, and no lock is held while the closure or the subscriber runs.
public struct DeferredComplete<Output, Failure: Error>: Publisher {
  /// The closure that decides the completion, run once per subscription: `nil` finishes, an
  /// error fails.
  public let closure: @Sendable () -> Failure?

  /// Creates a publisher that finishes, without a value, on each subscription's first positive
  /// request.
  ///
  /// ```swift
  /// let done = DeferredComplete<Int, Never>()
  /// ```
  public init() {
    closure = { nil }
  }

  /// Creates a publisher that runs `closure` on each subscription's first positive request, then
  /// finishes if it returns `nil` and fails with the error otherwise.
  ///
  /// ```swift
  /// let check = DeferredComplete(output: Int.self) { isValid(form) ? nil : FormError.invalid }
  /// ```
  ///
  /// - Parameters:
  ///   - output: The output type, for type inference; the publisher sends no values.
  ///   - closure: Returns `nil` to finish or an error to fail.
  public init(output: Output.Type = Output.self, closure: @escaping @Sendable () -> Failure?) {
    self.closure = closure
  }

  /// Creates a publisher that fails on each subscription's first positive request; `error` is
  /// evaluated then, once per subscription, and not before.
  ///
  /// ```swift
  /// let failing = DeferredComplete<Int, ClockError>(error: ClockError(at: .now))
  /// ```
  ///
  /// - Parameter error: The error to fail with, evaluated lazily.
  public init(error: @autoclosure @escaping @Sendable () -> Failure) {
    closure = { error() }
  }

  /// Hands `subscriber` a subscription that runs ``closure`` on its first positive request.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    attach(subscriber)
  }
}

extension DeferredComplete: Sendable {}

extension DeferredComplete: DeferredOneShot {
  static var subscriptionName: StaticString { "DeferredComplete" }

  func makeOutcome() -> DeferredOutcome<Output, Failure> {
    if let error = closure() { .completion(.failure(error)) } else { .completion(.finished) }
  }
}
