public import StreamCore

extension Publisher {
  /// Publishes the values of this publisher and three others as they arrive, interleaved.
  ///
  /// ```swift
  /// let all = a.merge(with: b, c, d)
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
  /// - Returns: A publisher that merges the values of all four publishers.
  @inlinable
  public func merge<B: Publisher, C: Publisher, D: Publisher>(
    with b: B,
    _ c: C,
    _ d: D
  ) -> Publishers.Merge4<Self, B, C, D>
  where
    B.Failure == Failure,
    B.Output == Output,
    C.Failure == Failure,
    C.Output == Output,
    D.Failure == Failure,
    D.Output == Output
  {
    Publishers.Merge4(self, b, c, d)
  }
}

extension Publishers {
  /// A publisher that interleaves the values of four publishers with the same output and
  /// failure types.
  ///
  /// ```swift
  /// let merged = Publishers.Merge4(a, b, c, d)
  /// ```
  ///
  /// It behaves like ``Merge``, with four publishers.
  ///
  /// > Thread safety: As for ``Merge``.
  public struct Merge4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
  where
    A.Failure == B.Failure,
    A.Output == B.Output,
    A.Failure == C.Failure,
    A.Output == C.Output,
    A.Failure == D.Failure,
    A.Output == D.Output
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

    /// Creates a publisher that merges four publishers.
    ///
    /// - Parameters:
    ///   - a: The first publisher.
    ///   - b: The second publisher.
    ///   - c: The third publisher.
    ///   - d: The fourth publisher.
    @inlinable
    public init(_ a: A, _ b: B, _ c: C, _ d: D) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      mergeSubscribe(
        subscriber,
        to: [{ a.subscribe($0) }, { b.subscribe($0) }, { c.subscribe($0) }, { d.subscribe($0) }]
      )
    }
  }
}

extension Publishers.Merge4: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}

extension Publishers.Merge4: Sendable where A: Sendable, B: Sendable, C: Sendable, D: Sendable {}
