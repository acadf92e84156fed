public import StreamCore

extension Publisher {
  /// Publishes `transform` of the values of this publisher and `other`, paired in order.
  ///
  /// ```swift
  /// let cancellable = questions.zip(answers) { "\($0) \($1)" }.sink { print($0) }
  /// ```
  ///
  /// The same as ``zip(_:)`` followed by `map`.
  ///
  /// <!-- marbles:zip -->
  /// Marble diagram of `zip(_:)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// left    -a--b--c|
  /// right   ---1---2|
  /// output  ---x---y|
  ///         x = (a, 1), y = (b, 2)
  /// ```
  ///
  /// ![Marble diagram of zip(_:)](marble-zip)
  /// <!-- /marbles:zip -->
  ///
  /// > Thread safety: As for ``zip(_:)``; `transform` is called for one tuple at a
  /// > time.
  ///
  /// - Parameters:
  ///   - other: Another publisher to zip with this one.
  ///   - transform: Makes the published value from values paired in order.
  /// - Returns: A publisher of the transformed values, paired in order.
  @inlinable
  public func zip<P: Publisher, T>(
    _ other: P,
    _ transform: @escaping (Output, P.Output) -> T
  ) -> Publishers.Map<Publishers.Zip<Self, P>, T> where Failure == P.Failure {
    Publishers.Map(upstream: Publishers.Zip(self, other)) { transform($0.0, $0.1) }
  }

  /// Publishes `transform` of the values of this publisher and two others, paired in order.
  ///
  /// ```swift
  /// let cancellable = red.zip(green, blue) { Colour($0, $1, $2) }.sink { paint($0) }
  /// ```
  ///
  /// The same as ``zip(_:_:)->Publishers.Zip3<Self,P,Q>`` followed by `map`.
  ///
  /// <!-- marbles:zip-3 -->
  /// Marble diagram of `zip(_:_:)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = (a, 1, A), y = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of zip(_:_:)](marble-zip-3)
  /// <!-- /marbles:zip-3 -->
  ///
  /// > Thread safety: As for ``zip(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to zip.
  ///   - publisher2: A third publisher to zip.
  ///   - transform: Makes the published value from values paired in order.
  /// - Returns: A publisher of the transformed values, paired in order.
  @inlinable
  public func zip<P: Publisher, Q: Publisher, T>(
    _ publisher1: P,
    _ publisher2: Q,
    _ transform: @escaping (Output, P.Output, Q.Output) -> T
  ) -> Publishers.Map<Publishers.Zip3<Self, P, Q>, T>
  where Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.Map(upstream: Publishers.Zip3(self, publisher1, publisher2)) {
      transform($0.0, $0.1, $0.2)
    }
  }

  /// Publishes `transform` of the values of this publisher and three others, paired in
  /// order.
  ///
  /// ```swift
  /// let cancellable = x.zip(y, z, w) { $0 + $1 + $2 + $3 }.sink { print($0) }
  /// ```
  ///
  /// The same as ``zip(_:_:_:)->Publishers.Zip4<Self,P,Q,R>`` followed by `map`.
  ///
  /// <!-- marbles:zip-3 -->
  /// Marble diagram of `zip(_:_:)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = (a, 1, A), y = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of zip(_:_:)](marble-zip-3)
  /// <!-- /marbles:zip-3 -->
  ///
  /// > Thread safety: As for ``zip(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to zip.
  ///   - publisher2: A third publisher to zip.
  ///   - publisher3: A fourth publisher to zip.
  ///   - transform: Makes the published value from values paired in order.
  /// - Returns: A publisher of the transformed values, paired in order.
  @inlinable
  public func zip<P: Publisher, Q: Publisher, R: Publisher, T>(
    _ publisher1: P,
    _ publisher2: Q,
    _ publisher3: R,
    _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
  ) -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T>
  where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
    Publishers.Map(upstream: Publishers.Zip4(self, publisher1, publisher2, publisher3)) {
      transform($0.0, $0.1, $0.2, $0.3)
    }
  }
}
