import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes an array of the n-th values of this publisher and each of `others`, once each
  /// has sent its n-th value.
  ///
  /// ```swift
  /// let cancellable = pages.zip(with: [thumbnails, captions]).sink { print($0) }
  /// // [page n, thumbnail n, caption n]
  /// ```
  ///
  /// A chain of `Zip`, one per publisher of `others`, so it has `zip(_:)`'s demand,
  /// completion and failure rules: a publisher is asked for values only while the subscriber
  /// has demand for a tuple it would complete; it finishes once a publisher has finished and
  /// its values are used up; the first failure fails it. The array is in the order of the
  /// publishers, this one first.
  ///
  /// <!-- marbles:zip-many -->
  /// Marble diagram of `[first, second, third].zip()`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = [a, 1, A], y = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].zip()](marble-zip-many)
  /// <!-- /marbles:zip-many -->
  ///
  /// > Thread safety: As `zip(_:)`: the publishers may send from any threads at once; calls to
  /// > the subscriber never overlap.
  ///
  /// - Parameter others: The other publishers to zip with this one.
  /// - Returns: A publisher of arrays of values, one from each publisher.
  public func zip<Others: Collection>(with others: Others) -> AnyPublisher<[Output], Failure>
  where
    Others.Element: Publisher,
    Others.Element.Output == Output,
    Others.Element.Failure == Failure
  {
    others.reduce(map { [$0] }.eraseToAnyPublisher()) { zipped, next in
      zipped.zip(next) { values, value in values + [value] }.eraseToAnyPublisher()
    }
  }

  /// Publishes an array of the n-th values of this publisher and each of `others`, once each
  /// has sent its n-th value.
  ///
  /// ```swift
  /// let cancellable = pages.zip(with: thumbnails, captions).sink { print($0) }
  /// ```
  ///
  /// As `zip(with:)` of a collection.
  ///
  /// <!-- marbles:zip-many -->
  /// Marble diagram of `[first, second, third].zip()`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = [a, 1, A], y = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].zip()](marble-zip-many)
  /// <!-- /marbles:zip-many -->
  ///
  /// > Thread safety: As `zip(_:)`.
  ///
  /// - Parameter others: The other publishers to zip with this one.
  /// - Returns: A publisher of arrays of values, one from each publisher.
  public func zip<Other: Publisher>(with others: Other...) -> AnyPublisher<[Output], Failure>
  where Other.Output == Output, Other.Failure == Failure {
    zip(with: others)
  }
}

extension Collection where Element: Publisher {
  /// Publishes an array of the n-th values of the collection's publishers, once each has sent
  /// its n-th value.
  ///
  /// ```swift
  /// let cancellable = [pages, thumbnails, captions].zip().sink { print($0) }
  /// ```
  ///
  /// An empty collection gives a publisher that finishes at once, without a value. Otherwise as
  /// `zip(with:)` of a collection, the first publisher zipped with the rest.
  ///
  /// <!-- marbles:zip-many -->
  /// Marble diagram of `[first, second, third].zip()`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = [a, 1, A], y = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].zip()](marble-zip-many)
  /// <!-- /marbles:zip-many -->
  ///
  /// > Thread safety: As `zip(_:)`.
  ///
  /// - Returns: A publisher of arrays of values, in the collection's order.
  public func zip() -> AnyPublisher<[Element.Output], Element.Failure> {
    guard let first else { return Empty().eraseToAnyPublisher() }
    return first.zip(with: dropFirst())
  }
}
