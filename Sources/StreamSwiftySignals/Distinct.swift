import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher where Output: Equatable {
  /// Drops a value equal to the last value passed on (SwiftySignals' `distinct()`).
  ///
  /// ```swift
  /// let cancellable = [1, 1, 2, 1].publisher.distinct().sink { print($0) }  // 1, 2, 1
  /// ```
  ///
  /// It is `removeDuplicates()`; the first value always passes. It needs `Equatable` only, where
  /// SwiftySignals asked for `Comparable`.
  ///
  /// > Thread safety: As `removeDuplicates()`; `request(_:)` and `cancel()` are safe from any
  /// > thread.
  ///
  /// - Returns: A publisher without consecutive duplicates.
  public func distinct() -> Publishers.RemoveDuplicates<Self> {
    removeDuplicates()
  }
}
