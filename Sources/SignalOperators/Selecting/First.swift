public import StreamCore

extension Publisher {
  /// Sends the first value of the upstream, then finishes.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .first()
  ///   .sink { print($0) }  // prints 1
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The value (nothing if the upstream sent none) goes
  /// downstream, followed by `.finished`, once the first value arrives (then the upstream is
  /// cancelled) or the upstream has finished, and the subscriber has requested a value; an upstream
  /// failure passes through at once.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Returns: A publisher that sends the first upstream value.
  @inlinable
  public func first() -> Publishers.First<Self> {
    Publishers.First(upstream: self)
  }
}

extension Publishers {
  /// A publisher that sends the first value of its upstream, then finishes.
  ///
  /// ```swift
  /// let first = Publishers.First(upstream: [1, 2, 3].publisher)
  /// ```
  ///
  /// See ``StreamCore/Publisher/first()``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct First<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Creates the publisher; see ``StreamCore/Publisher/first()``.
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

extension Publishers.First: Equatable where Upstream: Equatable {}

extension Publishers.First: Sendable where Upstream: Sendable {}

extension Publishers.First {
  /// Stops at the first value.
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
    var first: Upstream.Output?

    @inlinable
    init() {
    }

    @inlinable
    static var name: String { "First" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      first = input
      return true
    }

    @inlinable
    var result: Output? { first }
  }
}
