import FutureKit
import StreamCore

extension Result {
  /// Propagate's `Result.SuccessBlock`: a closure that takes the value.
  ///
  /// ```swift
  /// let show: Result<Int, LoadError>.SuccessBlock = { print($0) }
  /// ```
  public typealias SuccessBlock = (Success) -> Void

  /// Propagate's `Result.ErrorBlock`: a closure that takes the failure.
  ///
  /// ```swift
  /// let report: Result<Int, LoadError>.ErrorBlock = { print("failed:", $0) }
  /// ```
  public typealias ErrorBlock = (Failure) -> Void

  /// Calls `body` with the value if this is a success, synchronously, as Propagate did.
  ///
  /// ```swift
  /// result.onSuccess { print("got", $0) }.onError { print("failed:", $0) }
  /// ```
  ///
  /// > Thread safety: Runs `body` on the calling thread, before returning.
  ///
  /// - Parameter body: What to do with the value.
  /// - Returns: This result, to chain ``onError(_:)``.
  @discardableResult
  public func onSuccess(_ body: SuccessBlock) -> Result {
    if case .success(let value) = self { body(value) }
    return self
  }

  /// Calls `body` with the failure if this is a failure, synchronously, as Propagate did.
  ///
  /// ```swift
  /// result.onError { print("failed:", $0) }
  /// ```
  ///
  /// > Thread safety: Runs `body` on the calling thread, before returning.
  ///
  /// - Parameter body: What to do with the failure.
  /// - Returns: This result, to chain ``onSuccess(_:)``.
  @discardableResult
  public func onError(_ body: ErrorBlock) -> Result {
    if case .failure(let error) = self { body(error) }
    return self
  }

  /// The value if this is a success, else `nil` (Propagate's `success`).
  ///
  /// ```swift
  /// if let value = result.success { print(value) }
  /// ```
  public var success: Success? {
    if case .success(let value) = self { return value }
    return nil
  }

  /// The failure if this is a failure, else `nil` (Propagate's `failure`).
  ///
  /// ```swift
  /// if let error = result.failure { print("failed:", error) }
  /// ```
  public var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
