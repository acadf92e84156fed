public import FutureKit

extension Future {
  /// Propagate's success callback.
  public typealias SuccessBlock = @Sendable (Output) -> Void

  /// Propagate's failure callback.
  public typealias ErrorBlock = @Sendable (Failure) -> Void

  /// Propagate's completion callback, given the result.
  public typealias FinallyBlock = @Sendable (Result<Output, Failure>) -> Void
}
