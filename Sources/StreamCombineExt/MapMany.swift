public import SignalOperators
public import StreamCore

extension Publisher where Output: Collection {
  /// Transforms every element of each collection the upstream publishes.
  ///
  /// ```swift
  /// [[1, 2], [3]].publisher.mapMany { $0 * 10 }.sink { print($0) }  // [10, 20], [30]
  /// ```
  ///
  /// A `Map` that maps each collection into an array: demand and
  /// completion pass through.
  ///
  /// > Thread safety: A value type; `transform` runs on the upstream's thread.
  ///
  /// - Parameter transform: Turns one element into an element of the published array.
  /// - Returns: A publisher of arrays of transformed elements.
  @inlinable
  public func mapMany<Result>(
    _ transform: @escaping (Output.Element) -> Result
  ) -> Publishers.Map<Self, [Result]> {
    map { $0.map(transform) }
  }
}
