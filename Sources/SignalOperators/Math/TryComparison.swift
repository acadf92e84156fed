public import StreamCore

extension Publisher {
  /// Sends the smallest value of the upstream by an ordering that may throw.
  ///
  /// ```swift
  /// struct Negative: Error {}
  /// [3, 1, 2].publisher
  ///   .tryMin { lhs, rhs in
  ///     guard lhs >= 0, rhs >= 0 else { throw Negative() }
  ///     return lhs < rhs
  ///   }
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints 1
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The smallest value (nothing if the upstream sent
  /// none) goes downstream, followed by `.finished`, once the upstream has finished and the
  /// subscriber has requested a value; an upstream failure passes through at once.
  ///
  /// Of equal values, the first one received is kept. An error thrown by `areInIncreasingOrder`
  /// cancels the upstream and fails the publisher with it.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Whether the first argument orders first; may throw.
  /// - Returns: A publisher that sends the smallest upstream value or fails with the thrown error.
  @inlinable
  public func tryMin(
    by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
  ) -> Publishers.TryComparison<Self> {
    Publishers.TryComparison(upstream: self) { try areInIncreasingOrder($1, $0) }
  }

  /// Sends the largest value of the upstream by an ordering that may throw.
  ///
  /// ```swift
  /// struct Negative: Error {}
  /// [3, 1, 2].publisher
  ///   .tryMax { lhs, rhs in
  ///     guard lhs >= 0, rhs >= 0 else { throw Negative() }
  ///     return lhs < rhs
  ///   }
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints 3
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The largest value (nothing if the upstream sent none)
  /// goes downstream, followed by `.finished`, once the upstream has finished and the subscriber
  /// has requested a value; an upstream failure passes through at once.
  ///
  /// Of equal values, the first one received is kept. An error thrown by `areInIncreasingOrder`
  /// cancels the upstream and fails the publisher with it.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Whether the first argument orders first; may throw.
  /// - Returns: A publisher that sends the largest upstream value or fails with the thrown error.
  @inlinable
  public func tryMax(
    by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
  ) -> Publishers.TryComparison<Self> {
    Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
  }
}

extension Publishers {
  /// A publisher that sends the greatest of its upstream's values by a throwing ordering.
  ///
  /// ```swift
  /// let largest = Publishers.TryComparison(upstream: [3, 1].publisher) { $0 < $1 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryMax(by:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct TryComparison<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Whether the first argument orders first; may throw.
    public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

    /// Creates the publisher; see ``StreamCore/Publisher/tryMax(by:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher this one reduces.
    ///   - areInIncreasingOrder: Whether the first argument orders first; may throw.
    @inlinable
    public init(
      upstream: Upstream,
      areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool
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

extension Publishers.TryComparison {
  /// Keeps the greatest value so far; a thrown error ends the stream.
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
    let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

    @inlinable
    init(areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
      self.areInIncreasingOrder = areInIncreasingOrder
    }

    @inlinable
    static var name: String { "TryComparison" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) throws -> Bool {
      if let best, try !areInIncreasingOrder(best, input) { return false }
      best = input
      return false
    }

    @inlinable
    var result: Output? { best }

    @inlinable
    static func failure(_ error: Upstream.Failure) -> any Error { error }
  }
}
