import FutureKit
import SignalOperators
public import StreamCore

/// A publisher that runs a throwing closure when a subscriber first asks for a value, then sends
/// the value and finishes, or fails with the error thrown.
///
/// ```swift
/// let settings = DeferredTryValue { try loadSettings(from: path) }
/// let cancellable = settings.sink(
///   receiveCompletion: { if case .failure(let error) = $0 { print("failed:", error) } },
///   receiveValue: { apply($0) }
/// )
/// ```
///
/// ``closure`` runs once per subscription, synchronously inside the subscriber's first
/// `request(_:)` with positive demand, on the thread that makes that request; every new
/// subscriber runs it again. Subscribing runs nothing, and a subscription cancelled before its
/// first request never runs the closure. A returned value is sent, followed at once by
/// `.finished` (unless the subscriber cancels from inside
/// `receive(_:)`); a thrown error is sent as `.failure`, without a value. The error's concrete
/// type is lost: ``Failure`` is `any Error`. Its subscription's description is
/// `"DeferredTryValue"`.
///
/// > Thread safety: A `Sendable` value type; `subscribe` may be called from any thread. The
/// > closure is `@Sendable`: a subscription's first request may come from any thread, so two
/// > subscriptions of one publisher can run it at the same time. `request(_:)` and `cancel()`
/// > are safe from any thread, and no lock is held while the closure or the subscriber runs.
public struct DeferredTryValue<Output>: Publisher {
  /// The kind of errors this publisher might publish: whatever ``closure`` throws.
  public typealias Failure = any Error

  /// The closure that produces the value or throws, run once per subscription.
  public let closure: @Sendable () throws -> Output

  /// Creates a publisher that sends the value `closure` returns and finishes, or fails with the
  /// error it throws.
  ///
  /// ```swift
  /// let parsed = DeferredTryValue { try JSONParser.parse(text) }
  /// ```
  ///
  /// - Parameter closure: Produces the value or throws; runs on each subscription's first
  ///   positive request.
  public init(closure: @escaping @Sendable () throws -> Output) {
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

extension DeferredTryValue: Sendable {}

extension DeferredTryValue: DeferredOneShot {
  static var subscriptionName: StaticString { "DeferredTryValue" }

  func makeOutcome() -> DeferredOutcome<Output, Failure> {
    do {
      return .value(try closure())
    } catch {
      return .completion(.failure(error))
    }
  }
}
