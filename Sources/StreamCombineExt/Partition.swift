import SignalOperators
public import StreamCore

extension Publisher {
  /// One side of ``StreamCore/Publisher/partition(_:)``.
  public typealias Partition = AnyPublisher<Output, Failure>

  /// Splits the values into those that pass a test and those that don't.
  ///
  /// ```swift
  /// let numbers = PassthroughSubject<Int, Never>()
  /// let (even, odd) = numbers.partition { $0.isMultiple(of: 2) }
  /// let a = even.sink { print("even", $0) }
  /// let b = odd.sink { print("odd", $0) }
  /// numbers.send(1)  // odd 1
  /// numbers.send(2)  // even 2
  /// ```
  ///
  /// Both sides share one subscription to the upstream (`share()`), made when the first
  /// subscriber arrives; `predicate` runs once per value. As with `share()`, a side subscribed
  /// later misses what was sent before, and the shared subscription asks for unlimited values.
  ///
  /// > Thread safety: As `share()`: values reach each side on the upstream's thread.
  ///
  /// - Parameter predicate: Returns `true` for a value that goes to `matches`.
  /// - Returns: The publisher of matching values and the publisher of the others.
  public func partition(
    _ predicate: @escaping (Output) -> Bool
  ) -> (matches: Partition, nonMatches: Partition) {
    let judged = map { (value: $0, matches: predicate($0)) }.share()
    let matches = judged.compactMap { $0.matches ? $0.value : nil }.eraseToAnyPublisher()
    let nonMatches = judged.compactMap { $0.matches ? nil : $0.value }.eraseToAnyPublisher()
    return (matches, nonMatches)
  }
}
