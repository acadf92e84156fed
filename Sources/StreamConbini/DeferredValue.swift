import FutureKit
import SignalOperators
public import StreamCore

/// A publisher that runs a closure when a subscriber first asks for a value, sends the value it
/// returns, and finishes.
///
/// ```swift
/// let report = DeferredValue { buildReport() }  // nothing runs yet
/// let cancellable = report.sink { print($0) }   // builds the report, prints it
/// ```
///
/// ``closure`` runs once per subscription, synchronously inside the subscriber's first
/// `request(_:)` with positive demand, on the thread that makes that request; every new
/// subscriber runs it again. Subscribing runs nothing, and a subscription cancelled before its
/// first request never runs the closure. The value is sent even if the demand was `.max(1)`,
/// followed at once by `.finished`; a cancel from inside
/// `receive(_:)` stops the completion. Its subscription's description is `"DeferredValue"`.
///
/// Unlike `Just`, the value isn't computed until someone wants it, and is computed afresh for
/// each subscriber; unlike `Future`, nothing runs at initialisation and nothing is cached.
///
/// > Thread safety: A `Sendable` value type; `subscribe` may be called from any thread. The
/// > closure is `@Sendable`: a subscription's first request may come from any thread, so two
/// > subscriptions of one publisher can run it at the same time. `request(_:)` and `cancel()`
/// > are safe from any thread, and no lock is held while the closure or the subscriber runs.
public struct DeferredValue<Output, Failure: Error>: Publisher {
  /// The closure that produces the value, run once per subscription.
  public let closure: @Sendable () -> Output

  /// Creates a publisher that sends the value `closure` returns, then finishes.
  ///
  /// ```swift
  /// let now = DeferredValue(failure: MyError.self) { ContinuousClock.now }
  /// ```
  ///
  /// - Parameters:
  ///   - failure: The failure type, for type inference; the publisher never fails.
  ///   - closure: Produces the value; runs on each subscription's first positive request.
  public init(failure: Failure.Type = Failure.self, closure: @escaping @Sendable () -> Output) {
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

extension DeferredValue: Sendable {}

extension DeferredValue: DeferredOneShot {
  static var subscriptionName: StaticString { "DeferredValue" }

  func makeOutcome() -> DeferredOutcome<Output, Failure> {
    .value(closure())
  }
}
