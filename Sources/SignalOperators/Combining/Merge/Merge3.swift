public import StreamCore

extension Publisher {
  /// Publishes the values of this publisher and two others as they arrive, interleaved.
  ///
  /// ```swift
  /// let all = a.merge(with: b, c)
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
  /// - Returns: A publisher that merges the values of all three publishers.
  @inlinable
  public func merge<B: Publisher, C: Publisher>(
    with b: B,
    _ c: C
  ) -> Publishers.Merge3<Self, B, C>
  where
    B.Failure == Failure,
    B.Output == Output,
    C.Failure == Failure,
    C.Output == Output
  {
    Publishers.Merge3(self, b, c)
  }
}

extension Publishers {
  /// A publisher that interleaves the values of three publishers with the same output and
  /// failure types.
  ///
  /// ```swift
  /// let merged = Publishers.Merge3(a, b, c)
  /// ```
  ///
  /// It behaves like ``Merge``, with three publishers.
  ///
  /// > Thread safety: As for ``Merge``.
  public struct Merge3<A: Publisher, B: Publisher, C: Publisher>: Publisher
  where
    A.Failure == B.Failure,
    A.Output == B.Output,
    A.Failure == C.Failure,
    A.Output == C.Output
  {
    public typealias Output = A.Output
    public typealias Failure = A.Failure

    /// The first publisher.
    public let a: A

    /// The second publisher.
    public let b: B

    /// The third publisher.
    public let c: C

    /// Creates a publisher that merges three publishers.
    ///
    /// - Parameters:
    ///   - a: The first publisher.
    ///   - b: The second publisher.
    ///   - c: The third publisher.
    @inlinable
    public init(_ a: A, _ b: B, _ c: C) {
      self.a = a
      self.b = b
      self.c = c
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      mergeSubscribe(
        subscriber,
        to: [{ a.subscribe($0) }, { b.subscribe($0) }, { c.subscribe($0) }]
      )
    }
  }
}

extension Publishers.Merge3: Equatable where A: Equatable, B: Equatable, C: Equatable {}

extension Publishers.Merge3: Sendable where A: Sendable, B: Sendable, C: Sendable {}
