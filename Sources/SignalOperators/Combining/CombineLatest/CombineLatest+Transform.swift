public import StreamCore

extension Publisher {
  /// Publishes `transform` of the latest values of this publisher and `other` whenever either
  /// sends, once both have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = width.combineLatest(height) { $0 * $1 }.sink { print("area", $0) }
  /// ```
  ///
  /// The same as ``combineLatest(_:)`` followed by `map`.
  ///
  /// <!-- marbles:combine-latest -->
  /// Marble diagram of `combineLatest(_:)`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// left    -a---b---|
  /// right   ---1---2-|
  /// output  ---x-y-z-|
  ///         x = (a, 1), y = (b, 1), z = (b, 2)
  /// ```
  ///
  /// ![Marble diagram of combineLatest(_:)](marble-combine-latest)
  /// <!-- /marbles:combine-latest -->
  ///
  /// > Thread safety: As for ``combineLatest(_:)``; `transform` is called for one tuple at a
  /// > time.
  ///
  /// - Parameters:
  ///   - other: Another publisher to combine with this one.
  ///   - transform: Makes the published value from the latest values.
  /// - Returns: A publisher of the transformed latest values.
  @inlinable
  public func combineLatest<P: Publisher, T>(
    _ other: P,
    _ transform: @escaping (Output, P.Output) -> T
  ) -> Publishers.Map<Publishers.CombineLatest<Self, P>, T> where Failure == P.Failure {
    Publishers.Map(upstream: Publishers.CombineLatest(self, other)) { transform($0.0, $0.1) }
  }

  /// Publishes `transform` of the latest values of this publisher and two others whenever one
  /// sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = red.combineLatest(green, blue) { Colour($0, $1, $2) }.sink { paint($0) }
  /// ```
  ///
  /// The same as ``combineLatest(_:_:)->Publishers.CombineLatest3<Self,P,Q>`` followed by `map`.
  ///
  /// <!-- marbles:combine-latest-3 -->
  /// Marble diagram of `combineLatest(_:_:)`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = (a, 1, A), y = (b, 1, A), z = (b, 1, B), w = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of combineLatest(_:_:)](marble-combine-latest-3)
  /// <!-- /marbles:combine-latest-3 -->
  ///
  /// > Thread safety: As for ``combineLatest(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to combine.
  ///   - publisher2: A third publisher to combine.
  ///   - transform: Makes the published value from the latest values.
  /// - Returns: A publisher of the transformed latest values.
  @inlinable
  public func combineLatest<P: Publisher, Q: Publisher, T>(
    _ publisher1: P,
    _ publisher2: Q,
    _ transform: @escaping (Output, P.Output, Q.Output) -> T
  ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
  where Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.Map(upstream: Publishers.CombineLatest3(self, publisher1, publisher2)) {
      transform($0.0, $0.1, $0.2)
    }
  }

  /// Publishes `transform` of the latest values of this publisher and three others whenever
  /// one sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = x.combineLatest(y, z, w) { $0 + $1 + $2 + $3 }.sink { print($0) }
  /// ```
  ///
  /// The same as ``combineLatest(_:_:_:)->Publishers.CombineLatest4<Self,P,Q,R>`` followed by `map`.
  ///
  /// <!-- marbles:combine-latest-3 -->
  /// Marble diagram of `combineLatest(_:_:)`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = (a, 1, A), y = (b, 1, A), z = (b, 1, B), w = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of combineLatest(_:_:)](marble-combine-latest-3)
  /// <!-- /marbles:combine-latest-3 -->
  ///
  /// > Thread safety: As for ``combineLatest(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to combine.
  ///   - publisher2: A third publisher to combine.
  ///   - publisher3: A fourth publisher to combine.
  ///   - transform: Makes the published value from the latest values.
  /// - Returns: A publisher of the transformed latest values.
  @inlinable
  public func combineLatest<P: Publisher, Q: Publisher, R: Publisher, T>(
    _ publisher1: P,
    _ publisher2: Q,
    _ publisher3: R,
    _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
  ) -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
  where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
    Publishers.Map(upstream: Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)) {
      transform($0.0, $0.1, $0.2, $0.3)
    }
  }
}
