public import StreamCore

extension Publisher {
  /// Publishes the values of this publisher and another as they arrive, interleaved.
  ///
  /// ```swift
  /// let gestures = taps.merge(with: swipes)
  /// ```
  ///
  /// The result finishes once both have finished, and fails with the first failure, cancelling
  /// the other. See ``StreamCore/Publishers/Merge`` for how demand is passed on.
  ///
  /// <!-- marbles:merge -->
  /// Marble diagram of `merge(with:)`, made by running it (a character is a tick of virtual time;
  /// `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// left    -a---b-|
  /// right   --1---2--|
  /// output  -a1--b2--|
  /// ```
  ///
  /// ![Marble diagram of merge(with:)](marble-merge)
  /// <!-- /marbles:merge -->
  ///
  /// > Thread safety: The publishers may send from any threads; values go downstream one at a
  /// > time, never overlapping.
  ///
  /// - Parameter other: Another publisher with the same output and failure types.
  /// - Returns: A publisher that merges the values of both publishers.
  @inlinable
  public func merge<P: Publisher>(
    with other: P
  ) -> Publishers.Merge<Self, P>
  where
    P.Failure == Failure,
    P.Output == Output
  {
    Publishers.Merge(self, other)
  }
}

extension Publishers {
  /// A publisher that interleaves the values of two publishers with the same output and
  /// failure types.
  ///
  /// ```swift
  /// let merged = Publishers.Merge(a, b)
  /// ```
  ///
  /// Each publisher gets its own subscription, subscribed in order after the subscriber has
  /// received the merge's (described as `"Merge"`). Demand is passed on as Combine does: each
  /// request of the subscriber goes, unchanged, to every publisher that has not finished (one
  /// subscribed later is asked for the demand left then), until the demand is unlimited; values
  /// beyond the subscriber's demand wait, first in, first out, until it asks for more, so it never
  /// gets more than it asked for. The demand its `receive(_:)` returns goes back only to the
  /// publisher whose value it was (for a value that had waited, it only adds to the demand). The
  /// merge finishes when all have finished (after any value still waiting for demand) and fails
  /// with the first failure (dropping waiting values and cancelling the others); cancelling it
  /// cancels them all.
  ///
  /// > Thread safety: The publishers may send from any threads. Values go downstream one at a
  /// > time, each on the thread that sent it: a value sent while another thread delivers waits
  /// > for that delivery, as Combine's does. `request(_:)` and `cancel()` are safe from any
  /// > thread.
  public struct Merge<A: Publisher, B: Publisher>: Publisher
  where
    A.Failure == B.Failure,
    A.Output == B.Output
  {
    public typealias Output = A.Output
    public typealias Failure = A.Failure

    /// The first publisher.
    public let a: A

    /// The second publisher.
    public let b: B

    /// Creates a publisher that merges two publishers.
    ///
    /// - Parameters:
    ///   - a: The first publisher.
    ///   - b: The second publisher.
    @inlinable
    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      mergeSubscribe(subscriber, to: [{ a.subscribe($0) }, { b.subscribe($0) }])
    }
  }
}

extension Publishers.Merge: Equatable where A: Equatable, B: Equatable {}

extension Publishers.Merge: Sendable where A: Sendable, B: Sendable {}
