import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Takes the first `count` values and then finishes, like Snail's `take(first:)`; this is
  /// Combine's `prefix(_:)`.
  ///
  /// ```swift
  /// taps.take(first: 3).subscribe(onNext: { print("tap") }, onDone: { print("three taps") })
  /// ```
  ///
  /// It finishes as soon as the `count`-th value is delivered, and cancels upstream. Unlike
  /// Snail, `take(first: 0)` finishes at once instead of at the first upstream value.
  ///
  /// > Thread safety: The same as `prefix(_:)`.
  ///
  /// - Parameter count: How many values to take; must not be negative.
  /// - Returns: A `Output` publisher.
  public func take(first count: Int) -> Publishers.Output<Self> {
    prefix(count)
  }

  /// Takes the first `count` values and then finishes, with the count as Snail took it (a
  /// `UInt`).
  ///
  /// ```swift
  /// let n: UInt = 3
  /// taps.take(first: n).subscribe(onNext: { print("tap") }, onDone: { print("three taps") })
  /// ```
  ///
  /// > Thread safety: The same as `prefix(_:)`.
  ///
  /// - Parameter count: How many values to take.
  /// - Returns: A `Output` publisher.
  public func take(first count: UInt) -> Publishers.Output<Self> {
    prefix(Int(clamping: count))
  }
}
