public import StreamCore

extension Publisher {
  /// Publishes the values of this publisher and five others as they arrive, interleaved.
  ///
  /// ```swift
  /// let all = a.merge(with: b, c, d, e, f)
  /// ```
  ///
  /// It behaves like ``StreamCore/Publisher/merge(with:)-(P)``, with more publishers.
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
  /// > Thread safety: As for ``StreamCore/Publisher/merge(with:)-(P)``.
  ///
  /// - Parameters:
  ///   - b: The second publisher.
  ///   - c: The third publisher.
  ///   - d: The fourth publisher.
  ///   - e: The fifth publisher.
  ///   - f: The sixth publisher.
  /// - Returns: A publisher that merges the values of all six publishers.
  @inlinable
  public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher>(
    with b: B,
    _ c: C,
    _ d: D,
    _ e: E,
    _ f: F
  ) -> Publishers.Merge6<Self, B, C, D, E, F>
  where
    B.Failure == Failure,
    B.Output == Output,
    C.Failure == Failure,
    C.Output == Output,
    D.Failure == Failure,
    D.Output == Output,
    E.Failure == Failure,
    E.Output == Output,
    F.Failure == Failure,
    F.Output == Output
  {
    Publishers.Merge6(self, b, c, d, e, f)
  }
}

extension Publishers {
  /// A publisher that interleaves the values of six publishers with the same output and
  /// failure types.
  ///
  /// ```swift
  /// let merged = Publishers.Merge6(a, b, c, d, e, f)
  /// ```
  ///
  /// It behaves like ``Merge``, with six publishers.
  ///
  /// > Thread safety: As for ``Merge``.
  public struct Merge6<
    A: Publisher,
    B: Publisher,
    C: Publisher,
    D: Publisher,
    E: Publisher,
    F: Publisher
  >: Publisher
  where
    A.Failure == B.Failure,
    A.Output == B.Output,
    A.Failure == C.Failure,
    A.Output == C.Output,
    A.Failure == D.Failure,
    A.Output == D.Output,
    A.Failure == E.Failure,
    A.Output == E.Output,
    A.Failure == F.Failure,
    A.Output == F.Output
  {
    public typealias Output = A.Output
    public typealias Failure = A.Failure

    /// The first publisher.
    public let a: A

    /// The second publisher.
    public let b: B

    /// The third publisher.
    public let c: C

    /// The fourth publisher.
    public let d: D

    /// The fifth publisher.
    public let e: E

    /// The sixth publisher.
    public let f: F

    /// Creates a publisher that merges six publishers.
    ///
    /// - Parameters:
    ///   - a: The first publisher.
    ///   - b: The second publisher.
    ///   - c: The third publisher.
    ///   - d: The fourth publisher.
    ///   - e: The fifth publisher.
    ///   - f: The sixth publisher.
    @inlinable
    public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
      self.e = e
      self.f = f
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      mergeSubscribe(
        subscriber,
        to: [
          { a.subscribe($0) }, { b.subscribe($0) }, { c.subscribe($0) }, { d.subscribe($0) },
          { e.subscribe($0) }, { f.subscribe($0) },
        ]
      )
    }
  }
}

extension Publishers.Merge6: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable {}

extension Publishers.Merge6: Sendable
where A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable, F: Sendable {}
