public import StreamCore

extension Publisher where Output: Comparable {
  /// Sends the smallest value of the upstream, once it finishes.
  ///
  /// ```swift
  /// [3, 1, 2].publisher
  ///   .min()
  ///   .sink { print($0) }  // prints 1
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The smallest value (nothing if the upstream sent
  /// none) goes downstream, followed by `.finished`, once the upstream has finished and the
  /// subscriber has requested a value; an upstream failure passes through at once.
  ///
  /// Of equal values, the first one received is kept.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Returns: A publisher that sends the smallest upstream value.
  @inlinable
  public func min() -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self, areInIncreasingOrder: >)
  }

  /// Sends the largest value of the upstream, once it finishes.
  ///
  /// ```swift
  /// [3, 1, 2].publisher
  ///   .max()
  ///   .sink { print($0) }  // prints 3
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The largest value (nothing if the upstream sent none)
  /// goes downstream, followed by `.finished`, once the upstream has finished and the subscriber
  /// has requested a value; an upstream failure passes through at once.
  ///
  /// Of equal values, the first one received is kept.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Returns: A publisher that sends the largest upstream value.
  @inlinable
  public func max() -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self, areInIncreasingOrder: <)
  }
}

extension Publisher {
  /// Sends the smallest value of the upstream by an ordering, once it finishes.
  ///
  /// ```swift
  /// ["bb", "a", "ccc"].publisher
  ///   .min { $0.count < $1.count }
  ///   .sink { print($0) }  // prints a
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The smallest value (nothing if the upstream sent
  /// none) goes downstream, followed by `.finished`, once the upstream has finished and the
  /// subscriber has requested a value; an upstream failure passes through at once.
  ///
  /// Of equal values, the first one received is kept.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Whether the first argument orders before the second.
  /// - Returns: A publisher that sends the smallest upstream value.
  @inlinable
  public func min(
    by areInIncreasingOrder: @escaping (Output, Output) -> Bool
  ) -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self) { areInIncreasingOrder($1, $0) }
  }

  /// Sends the largest value of the upstream by an ordering, once it finishes.
  ///
  /// ```swift
  /// ["bb", "a", "ccc"].publisher
  ///   .max { $0.count < $1.count }
  ///   .sink { print($0) }  // prints ccc
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The largest value (nothing if the upstream sent none)
  /// goes downstream, followed by `.finished`, once the upstream has finished and the subscriber
  /// has requested a value; an upstream failure passes through at once.
  ///
  /// Of equal values, the first one received is kept.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Whether the first argument orders before the second.
  /// - Returns: A publisher that sends the largest upstream value.
  @inlinable
  public func max(
    by areInIncreasingOrder: @escaping (Output, Output) -> Bool
  ) -> Publishers.Comparison<Self> {
    Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
  }
}

extension Publishers {
  /// A publisher that sends the greatest of its upstream's values by an ordering, once it finishes.
  ///
  /// ```swift
  /// let largest = Publishers.Comparison(upstream: [3, 1, 2].publisher, areInIncreasingOrder: <)
  /// ```
  ///
  /// See ``StreamCore/Publisher/max(by:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct Comparison<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Whether the first argument orders before the second.
    public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

    /// Creates the publisher; see ``StreamCore/Publisher/max(by:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher this one reduces.
    ///   - areInIncreasingOrder: Whether the first argument orders before the second.
    @inlinable
    public init(
      upstream: Upstream,
      areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool
    ) {
      self.upstream = upstream
      self.areInIncreasingOrder = areInIncreasingOrder
    }

    /// Subscribes `subscriber` to the reduced result of ``upstream``.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ReduceProducer(
          downstream: subscriber,
          reducer: Reducer(areInIncreasingOrder: areInIncreasingOrder)
        )
      )
    }
  }
}

extension Publishers.Comparison {
  /// Keeps the greatest value so far; a later value replaces it only if strictly greater.
  @usableFromInline
  struct Reducer: ValueReducer {
    @usableFromInline
    typealias Element = Upstream.Output

    @usableFromInline
    typealias Reduced = Output

    @usableFromInline
    typealias UpstreamFailure = Upstream.Failure

    @usableFromInline
    typealias ReducedFailure = Failure

    @usableFromInline
    var best: Upstream.Output?

    @usableFromInline
    let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

    @inlinable
    init(areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
      self.areInIncreasingOrder = areInIncreasingOrder
    }

    @inlinable
    static var name: String { "Comparison" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      if let best, !areInIncreasingOrder(best, input) { return false }
      best = input
      return false
    }

    @inlinable
    var result: Output? { best }
  }
}
