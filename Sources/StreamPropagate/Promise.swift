public import FutureKit
import StreamCore

/// The side of a future that completes it: Propagate's `Promise`.
///
/// ```swift
/// func user(id: String) -> Future<User, LoadError> {
///   let promise = Promise<User, LoadError>()
///   store.user(id: id) { user, error in
///     if let user {
///       promise.resolve(user)
///     } else {
///       promise.reject(error ?? .unknown)
///     }
///   }
///   return promise.future
/// }
/// ```
///
/// A promise owns one `Future` (``future``). Only its first completion counts: each completing
/// call returns whether it was the one, and later calls change nothing (Propagate ignored them
/// silently; here the `Bool` tells). The future's subscribers, and its callbacks registered
/// ``CallbackDelivery/synchronously``, are notified by the call that wins, on its thread, after
/// the future's lock is released; its other callbacks run later on their queues, never inside
/// the call, as in Propagate.
///
/// > Thread safety: A promise may be completed from any thread, and from several at once: exactly
/// > one call wins.
public final class Promise<Output, Failure: Error>: Sendable {
  /// The future this promise completes.
  public let future: Future<Output, Failure>

  /// Creates a promise with a pending future.
  ///
  /// ```swift
  /// let promise = Promise<Int, Never>()
  /// promise.future.isComplete  // false
  /// ```
  public init() {
    future = Future()
  }

  /// Creates a promise whose future has already succeeded.
  ///
  /// ```swift
  /// Promise<Int, Never>(value: 1).future.resolvedValue  // 1
  /// ```
  ///
  /// - Parameter value: The value.
  public init(value: Output) {
    future = Future(result: .success(value))
  }

  /// Creates a promise whose future has already failed.
  ///
  /// ```swift
  /// Promise<Int, LoadError>(error: .offline).future.failed  // true
  /// ```
  ///
  /// - Parameter error: The failure.
  public init(error: Failure) {
    future = Future(result: .failure(error))
  }

  /// Completes the future with `value`, unless it is already complete.
  ///
  /// ```swift
  /// promise.resolve(42)  // true
  /// promise.resolve(43)  // false: the future keeps 42
  /// ```
  ///
  /// > Thread safety: May be called from any thread; callbacks registered without a queue, and
  /// > subscribers with demand, are called on this thread before it returns.
  ///
  /// - Parameter value: The value.
  /// - Returns: Whether this call completed the future.
  @discardableResult
  public func resolve(_ value: Output) -> Bool {
    future.complete(.success(value))
  }

  /// Completes the future with `error`, unless it is already complete.
  ///
  /// ```swift
  /// promise.reject(.offline)
  /// ```
  ///
  /// > Thread safety: As ``resolve(_:)``.
  ///
  /// - Parameter error: The failure.
  /// - Returns: Whether this call completed the future.
  @discardableResult
  public func reject(_ error: Failure) -> Bool {
    future.complete(.failure(error))
  }

  /// Completes the future with `result`, unless it is already complete.
  ///
  /// ```swift
  /// promise.complete(withResult: Result { try decode(data) }.mapError(LoadError.init))
  /// ```
  ///
  /// > Thread safety: As ``resolve(_:)``.
  ///
  /// - Parameter result: The value or the failure.
  /// - Returns: Whether this call completed the future.
  @discardableResult
  public func complete(withResult result: Result<Output, Failure>) -> Bool {
    future.complete(result)
  }

  /// Completes the future with whatever `future` ends with, when it does.
  ///
  /// ```swift
  /// let promise = Promise<Data, LoadError>()
  /// promise.completeOn(future: cache.load())
  /// ```
  ///
  /// The completion happens on the thread that completes `future` and, like any other, counts
  /// only if it is the first.
  ///
  /// - Parameter future: The future whose result completes this promise.
  public func completeOn(future: Future<Output, Failure>) {
    future.bindTo(self)
  }
}
