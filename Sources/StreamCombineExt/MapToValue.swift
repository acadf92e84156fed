public import SignalOperators
public import StreamCore

extension Publisher {
  /// Replaces each value with the same constant.
  ///
  /// ```swift
  /// let taps = PassthroughSubject<Void, Never>()
  /// let cancellable = taps.mapToValue("tap").sink { print($0) }
  /// taps.send()  // tap
  /// ```
  ///
  /// A `Map`: demand and completion pass through.
  ///
  /// > Thread safety: A value type; values pass on the upstream's thread.
  ///
  /// - Parameter value: The value to publish for each upstream value.
  /// - Returns: A publisher of `value`, once per upstream value.
  @inlinable
  public func mapToValue<Value>(_ value: Value) -> Publishers.Map<Self, Value> {
    map { _ in value }
  }

  /// Replaces each value with `()`.
  ///
  /// ```swift
  /// let saves = [1, 2].publisher.mapToVoid()  // (), ()
  /// ```
  ///
  /// A `Map`: demand and completion pass through.
  ///
  /// > Thread safety: A value type; values pass on the upstream's thread.
  ///
  /// - Returns: A publisher of `()`, once per upstream value.
  @inlinable
  public func mapToVoid() -> Publishers.Map<Self, Void> {
    map { _ in () }
  }
}
