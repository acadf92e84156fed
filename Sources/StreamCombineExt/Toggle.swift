public import SignalOperators
public import StreamCore

extension Publisher where Output == Bool {
  /// Publishes the negation of each value.
  ///
  /// ```swift
  /// [true, false].publisher.toggle().sink { print($0) }  // false, true
  /// ```
  ///
  /// A `Map`: demand and completion pass through.
  ///
  /// > Thread safety: A value type; values pass on the upstream's thread.
  ///
  /// - Returns: A publisher of the negated values.
  @inlinable
  public func toggle() -> Publishers.Map<Self, Bool> {
    map { !$0 }
  }
}
