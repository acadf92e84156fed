import SignalOperators
public import StreamCore

extension Publisher where Output: Collection {
  /// Keeps, in each collection the upstream publishes, only the elements that pass a test.
  ///
  /// ```swift
  /// [[1, 2, 3, 4]].publisher.filterMany { $0.isMultiple(of: 2) }.sink { print($0) }  // [2, 4]
  /// ```
  ///
  /// One array per upstream collection, empty ones included: demand and completion pass through.
  ///
  /// > Thread safety: `isIncluded` runs on the upstream's thread.
  ///
  /// - Parameter isIncluded: Returns `true` for an element to keep.
  /// - Returns: A publisher of arrays of the kept elements.
  public func filterMany(
    _ isIncluded: @escaping (Output.Element) -> Bool
  ) -> AnyPublisher<[Output.Element], Failure> {
    map { $0.filter(isIncluded) }.eraseToAnyPublisher()
  }
}
