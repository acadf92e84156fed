public import StreamCore

extension Publisher {
  /// Sends the number of values the upstream sent, once it finishes.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .count()
  ///   .sink { print($0) }  // prints 3
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The count goes downstream, followed by `.finished`,
  /// once the upstream has finished and the subscriber has requested a value; an upstream failure
  /// passes through at once.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Returns: A publisher that sends the number of upstream values.
  @inlinable
  public func count() -> Publishers.Count<Self> {
    Publishers.Count(upstream: self)
  }
}

extension Publishers {
  /// A publisher that sends how many values its upstream sent, once it finishes.
  ///
  /// ```swift
  /// let count = Publishers.Count(upstream: [1, 2, 3].publisher)
  /// ```
  ///
  /// See ``StreamCore/Publisher/count()``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct Count<Upstream: Publisher>: Publisher {
    public typealias Output = Int
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Creates the publisher; see ``StreamCore/Publisher/count()``.
    ///
    /// - Parameter upstream: The publisher this one reduces.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Subscribes `subscriber` to the reduced result of ``upstream``.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ReduceProducer(downstream: subscriber, reducer: Reducer())
      )
    }
  }
}

extension Publishers.Count: Equatable where Upstream: Equatable {}

extension Publishers.Count: Sendable where Upstream: Sendable {}

extension Publishers.Count {
  /// Counts the values.
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
    var count = 0

    @inlinable
    init() {
    }

    @inlinable
    static var name: String { "Count" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      count += 1
      return false
    }

    @inlinable
    var result: Output? { count }
  }
}
