import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Drops the first `count` values, like Snail's `skip(first:)`; this is Combine's `dropFirst`.
  ///
  /// ```swift
  /// taps.skip(first: 1).subscribe(onNext: { print("second tap or later") })
  /// ```
  ///
  /// Failures and the finish pass through at once.
  ///
  /// > Thread safety: The same as `dropFirst(_:)`.
  ///
  /// - Parameter count: How many values to drop; must not be negative.
  /// - Returns: A `Drop` publisher.
  public func skip(first count: Int) -> Publishers.Drop<Self> {
    dropFirst(count)
  }

  /// Drops the first `count` values, with the count as Snail took it (a `UInt`).
  ///
  /// ```swift
  /// let n: UInt = 2
  /// taps.skip(first: n).subscribe(onNext: { print("third tap or later") })
  /// ```
  ///
  /// > Thread safety: The same as `dropFirst(_:)`.
  ///
  /// - Parameter count: How many values to drop.
  /// - Returns: A `Drop` publisher.
  public func skip(first count: UInt) -> Publishers.Drop<Self> {
    dropFirst(Int(clamping: count))
  }
}
