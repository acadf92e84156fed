import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Transforms each value, spelled as SwiftySignals' `map(transform:)`.
  ///
  /// ```swift
  /// let cancellable = signal.fired.map(transform: { "\($0)" }).sink { print($0) }
  /// ```
  ///
  /// It is Combine's `map(_:)`. The overload is disfavoured, so `map { … }` with a trailing
  /// closure always means Combine's.
  ///
  /// > Thread safety: As `map(_:)`; `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter transform: Makes the new value from each value.
  /// - Returns: A publisher of the transformed values.
  @inlinable
  @_disfavoredOverload
  public func map<T>(transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
    map(transform)
  }
}
