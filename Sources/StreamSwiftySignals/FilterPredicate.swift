import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Passes on the values `predicate` accepts, spelled as SwiftySignals' `filter(predicate:)`.
  ///
  /// ```swift
  /// let cancellable = signal.fired.filter(predicate: { $0 > 0 }).sink { print($0) }
  /// ```
  ///
  /// It is Combine's `filter(_:)`. The overload is disfavoured, so `filter { … }` with a trailing
  /// closure always means Combine's.
  ///
  /// > Thread safety: As `filter(_:)`; `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter predicate: Whether to pass a value on.
  /// - Returns: A publisher of the accepted values.
  @inlinable
  @_disfavoredOverload
  public func filter(predicate: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
    filter(predicate)
  }
}
