import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes an array of the latest values of this publisher and each of `others` whenever
  /// one sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = cpu.combineLatest(with: [memory, disk]).sink { print($0) }
  /// // [cpu, memory, disk] each time one of them changes
  /// ```
  ///
  /// A chain of `CombineLatest`, one per publisher of `others`, so it has
  /// `combineLatest(_:)`'s demand, completion and failure rules: each publisher is asked for
  /// one value at a time while the subscriber has demand; it finishes when all have finished,
  /// or when one finishes without having sent a value; the first failure fails it. The array
  /// is in the order of the publishers, this one first.
  ///
  /// <!-- marbles:combine-latest-many -->
  /// Marble diagram of `[first, second, third].combineLatest()`, made by running it (a character is
  /// a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = [a, 1, A], y = [b, 1, A], z = [b, 1, B], w = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].combineLatest()](marble-combine-latest-many)
  /// <!-- /marbles:combine-latest-many -->
  ///
  /// > Thread safety: As `combineLatest(_:)`: the publishers may send from any threads at
  /// > once; calls to the subscriber never overlap.
  ///
  /// - Parameter others: The other publishers to combine with this one.
  /// - Returns: A publisher of arrays of the latest values.
  public func combineLatest<Others: Collection>(
    with others: Others
  ) -> AnyPublisher<
    [Output], Failure
  >
  where
    Others.Element: Publisher,
    Others.Element.Output == Output,
    Others.Element.Failure == Failure
  {
    others.reduce(map { [$0] }.eraseToAnyPublisher()) { combined, next in
      combined.combineLatest(next) { values, value in values + [value] }.eraseToAnyPublisher()
    }
  }

  /// Publishes an array of the latest values of this publisher and each of `others` whenever
  /// one sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = cpu.combineLatest(with: memory, disk).sink { print($0) }
  /// ```
  ///
  /// As `combineLatest(with:)` of a collection.
  ///
  /// <!-- marbles:combine-latest-many -->
  /// Marble diagram of `[first, second, third].combineLatest()`, made by running it (a character is
  /// a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = [a, 1, A], y = [b, 1, A], z = [b, 1, B], w = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].combineLatest()](marble-combine-latest-many)
  /// <!-- /marbles:combine-latest-many -->
  ///
  /// > Thread safety: As `combineLatest(_:)`.
  ///
  /// - Parameter others: The other publishers to combine with this one.
  /// - Returns: A publisher of arrays of the latest values.
  public func combineLatest<Other: Publisher>(
    with others: Other...
  ) -> AnyPublisher<
    [Output], Failure
  >
  where Other.Output == Output, Other.Failure == Failure {
    combineLatest(with: others)
  }
}

extension Collection where Element: Publisher {
  /// Publishes an array of the latest values of the collection's publishers whenever one sends,
  /// once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = [cpu, memory, disk].combineLatest().sink { print($0) }
  /// ```
  ///
  /// An empty collection gives a publisher that finishes at once, without a value. Otherwise as
  /// `combineLatest(with:)` of a collection, the first publisher combined
  /// with the rest.
  ///
  /// <!-- marbles:combine-latest-many -->
  /// Marble diagram of `[first, second, third].combineLatest()`, made by running it (a character is
  /// a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = [a, 1, A], y = [b, 1, A], z = [b, 1, B], w = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].combineLatest()](marble-combine-latest-many)
  /// <!-- /marbles:combine-latest-many -->
  ///
  /// > Thread safety: As `combineLatest(_:)`.
  ///
  /// - Returns: A publisher of arrays of the latest values, in the collection's order.
  public func combineLatest() -> AnyPublisher<[Element.Output], Element.Failure> {
    guard let first else { return Empty().eraseToAnyPublisher() }
    return first.combineLatest(with: dropFirst())
  }
}
