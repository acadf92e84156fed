import SignalOperators
public import StreamCore

extension Publisher {
  /// Interleaves the values of this publisher and of each of `others`.
  ///
  /// ```swift
  /// let cancellable = lobby.merge(with: rooms.map(\.messages)).sink { show($0) }
  /// ```
  ///
  /// A `MergeMany` of this publisher followed by `others`, so it has its demand,
  /// completion and failure rules: it finishes when all have finished and fails with the first
  /// failure.
  ///
  /// <!-- marbles:merge-many -->
  /// Marble diagram of `[first, second, third].merge()`, made by running it (a character is a tick
  /// of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b|
  /// second  --1----|
  /// third   ---A-B---|
  /// output  -a1A-Bb--|
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].merge()](marble-merge-many)
  /// <!-- /marbles:merge-many -->
  ///
  /// > Thread safety: As `MergeMany`.
  ///
  /// - Parameter others: The other publishers to merge with this one.
  /// - Returns: A publisher of the values of all of them.
  public func merge<Others: Collection>(with others: Others) -> AnyPublisher<Output, Failure>
  where
    Others.Element: Publisher,
    Others.Element.Output == Output,
    Others.Element.Failure == Failure
  {
    Publishers.MergeMany(
      [eraseToAnyPublisher()] + others.map { $0.eraseToAnyPublisher() }
    )
    .eraseToAnyPublisher()
  }
}

extension Collection where Element: Publisher {
  /// Interleaves the values of the collection's publishers.
  ///
  /// ```swift
  /// let cancellable = rooms.map(\.messages).merge().sink { show($0) }
  /// ```
  ///
  /// A `MergeMany` of the publishers: it finishes when all have finished (at once
  /// for an empty collection) and fails with the first failure, cancelling the others.
  ///
  /// <!-- marbles:merge-many -->
  /// Marble diagram of `[first, second, third].merge()`, made by running it (a character is a tick
  /// of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b|
  /// second  --1----|
  /// third   ---A-B---|
  /// output  -a1A-Bb--|
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].merge()](marble-merge-many)
  /// <!-- /marbles:merge-many -->
  ///
  /// > Thread safety: As `MergeMany`.
  ///
  /// - Returns: A publisher of the values of all of the collection's publishers.
  public func merge() -> AnyPublisher<Element.Output, Element.Failure> {
    Publishers.MergeMany(self).eraseToAnyPublisher()
  }
}
