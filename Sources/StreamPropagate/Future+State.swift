public import FutureKit
import StreamCore

extension Future {
  /// A future that has already succeeded with `value` (Propagate's `Future.of`).
  ///
  /// ```swift
  /// let cached = Future<Int, LoadError>.of(42)
  /// cached.resolvedValue  // 42
  /// ```
  ///
  /// No callback runs at creation. Subscribers receive the value on their first request.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter value: The value.
  /// - Returns: A completed future.
  public static func of(_ value: Output) -> Future {
    Future(result: .success(value))
  }

  /// A future that has already failed with `error` (Propagate's `Future.error`).
  ///
  /// ```swift
  /// let failed = Future<Int, LoadError>.error(.offline)
  /// failed.failed  // true
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter error: The failure.
  /// - Returns: A completed future.
  public static func error(_ error: Failure) -> Future {
    Future(result: .failure(error))
  }

  /// The value, if the future has succeeded; Propagate's `value`.
  ///
  /// ```swift
  /// let promise = Promise<Int, Never>()
  /// promise.resolve(3)
  /// promise.future.resolvedValue  // 3
  /// ```
  ///
  /// Combine's `value` is asynchronous on this type (`await future.value`), so Propagate's
  /// synchronous accessor has this name.
  ///
  /// > Thread safety: Reads the state under the future's lock; the answer is current as of the
  /// > call.
  public var resolvedValue: Output? {
    guard case .success(let value) = currentResult else { return nil }
    return value
  }

  /// The failure, if the future has failed.
  ///
  /// ```swift
  /// Future<Int, LoadError>.error(.offline).error  // .offline
  /// ```
  ///
  /// > Thread safety: Reads the state under the future's lock.
  public var error: Failure? {
    guard case .failure(let error) = currentResult else { return nil }
    return error
  }

  /// Whether the future has succeeded.
  ///
  /// ```swift
  /// Future<Int, Never>.of(1).succeeded  // true
  /// ```
  ///
  /// > Thread safety: Reads the state under the future's lock.
  public var succeeded: Bool {
    guard case .success = currentResult else { return false }
    return true
  }

  /// Whether the future has failed.
  ///
  /// ```swift
  /// Future<Int, LoadError>.error(.offline).failed  // true
  /// ```
  ///
  /// > Thread safety: Reads the state under the future's lock.
  public var failed: Bool {
    guard case .failure = currentResult else { return false }
    return true
  }

  /// Whether the future has completed, with a value or a failure.
  ///
  /// ```swift
  /// let promise = Promise<Int, Never>()
  /// promise.future.isComplete  // false
  /// promise.resolve(1)
  /// promise.future.isComplete  // true
  /// ```
  ///
  /// It is `true` as soon as the completing call (the promise, ``Promise/resolve(_:)`` and so on)
  /// has stored the result, before callbacks and subscribers are notified.
  ///
  /// > Thread safety: Reads the state under the future's lock.
  public var isComplete: Bool {
    currentResult != nil
  }
}
