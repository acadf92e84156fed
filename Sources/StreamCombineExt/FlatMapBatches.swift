import SignalOperators
public import StreamCore

extension Collection where Element: Publisher {
  /// Subscribes to the collection's publishers `size` at a time and publishes each batch's
  /// values as arrays, in order; the next batch starts once the previous one has finished.
  ///
  /// ```swift
  /// let cancellable = downloads.flatMapBatches(of: 3).sink { print($0) }
  /// // [d0, d1, d2], then [d3, d4, d5], then [d6]
  /// ```
  ///
  /// Each batch is the `zip()` of its publishers (the last batch may be smaller), so a batch
  /// of publishers that each send one value gives one array, in the collection's order. The
  /// batches run one after another (`flatMap(maxPublishers: .max(1))`); any failure fails the
  /// publisher and no later batch starts. An empty collection finishes at once. A size below 1
  /// traps.
  ///
  /// <!-- marbles:flat-map-batches -->
  /// Marble diagram of `[first, second, third].flatMapBatches(of: 2)`, made by running it (a
  /// character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a|
  /// second  ---b|
  /// third   -c|
  /// output  ---xy|
  ///         x = [a, b], y = [c]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].flatMapBatches(of: 2)](marble-flat-map-batches)
  /// <!-- /marbles:flat-map-batches -->
  ///
  /// > Thread safety: As `zip()` within a batch; batches never overlap.
  ///
  /// - Parameter size: How many publishers run at once; at least 1.
  /// - Returns: A publisher of each batch's arrays of values.
  public func flatMapBatches(of size: Int) -> AnyPublisher<[Element.Output], Element.Failure> {
    precondition(size > 0, "flatMapBatches(of:): size must be at least 1, got \(size)")
    var batches: [Range<Index>] = []
    var start = startIndex
    while start != endIndex {
      let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
      batches.append(start..<end)
      start = end
    }
    return
      batches.publisher
      .setFailureType(to: Element.Failure.self)
      .flatMap(maxPublishers: .max(1)) { self[$0].zip() }
      .eraseToAnyPublisher()
  }
}
