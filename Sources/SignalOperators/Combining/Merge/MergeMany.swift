public import StreamCore

extension Publishers {
  /// A publisher that interleaves the values of any number of publishers of one type.
  ///
  /// ```swift
  /// let feeds = Publishers.MergeMany(rooms.map(\.messages))
  /// let cancellable = feeds.sink { show($0) }
  /// ```
  ///
  /// It behaves like ``Merge``: one subscription per publisher, subscribed in order; each request
  /// of the subscriber passed on whole to every publisher not finished, values beyond its demand
  /// queued; it finishes when all have finished and fails with the first failure, cancelling the
  /// others.
  /// With no publishers it finishes as soon as the subscriber has its subscription. The
  /// subscription is described as `"Merge"`.
  ///
  /// > Thread safety: As for ``Merge``: the publishers may send from any threads, and values go
  /// > downstream one at a time.
  public struct MergeMany<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publishers merged, in subscription order.
    public let publishers: [Upstream]

    /// Creates a publisher that merges the given publishers.
    ///
    /// - Parameter upstream: The publishers to merge.
    @inlinable
    public init(_ upstream: Upstream...) {
      publishers = upstream
    }

    /// Creates a publisher that merges the publishers of a sequence.
    ///
    /// - Parameter upstream: The publishers to merge, in subscription order.
    @inlinable
    public init<S: Swift.Sequence>(_ upstream: S) where S.Element == Upstream {
      publishers = Array(upstream)
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let publishers = publishers
      mergeSubscribe(subscriber, count: publishers.count) { index, side in
        publishers[index].subscribe(side)
      }
    }

    /// Adds a publisher to those merged.
    ///
    /// ```swift
    /// let more = Publishers.MergeMany(a, b).merge(with: c)  // merges a, b and c
    /// ```
    ///
    /// <!-- marbles:merge-many -->
    /// Marble diagram of `[first, second, third].merge()`, made by running it (a character is a
    /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
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
    /// - Parameter other: The publisher to add; it is subscribed last.
    /// - Returns: A `MergeMany` of this one's publishers followed by `other`.
    @inlinable
    public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
      Publishers.MergeMany(publishers + [other])
    }
  }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {}

extension Publishers.MergeMany: Sendable where Upstream: Sendable {}
