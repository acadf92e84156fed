public import StreamCore

extension Publisher where Output: Equatable {
  /// Sends `true` as soon as the upstream sends `output`, or `false` if it finishes without.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .contains(2)
  ///   .sink { print($0) }  // prints true
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The answer goes downstream, followed by `.finished`,
  /// once a value equals `output` (then the upstream is cancelled) or the upstream has finished,
  /// and the subscriber has requested a value; an upstream failure passes through at once.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter output: The value to look for.
  /// - Returns: A publisher that sends whether the upstream sent `output`.
  @inlinable
  public func contains(_ output: Output) -> Publishers.Contains<Self> {
    Publishers.Contains(upstream: self, output: output)
  }
}

extension Publishers {
  /// A publisher that sends whether its upstream sends a given value.
  ///
  /// ```swift
  /// let hasTwo = Publishers.Contains(upstream: [1, 2, 3].publisher, output: 2)
  /// ```
  ///
  /// See ``StreamCore/Publisher/contains(_:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct Contains<Upstream: Publisher>: Publisher
  where Upstream.Output: Equatable {
    public typealias Output = Bool
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// The value to look for.
    public let output: Upstream.Output

    /// Creates the publisher; see ``StreamCore/Publisher/contains(_:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher this one reduces.
    ///   - output: The value to look for.
    @inlinable
    public init(upstream: Upstream, output: Upstream.Output) {
      self.upstream = upstream
      self.output = output
    }

    /// Subscribes `subscriber` to the reduced result of ``upstream``.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ReduceProducer(downstream: subscriber, reducer: Reducer(output: output))
      )
    }
  }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {}

extension Publishers.Contains: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publishers.Contains {
  /// Stops at the first value equal to `output`.
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
    let output: Upstream.Output

    @usableFromInline
    var found = false

    @inlinable
    init(output: Upstream.Output) {
      self.output = output
    }

    @inlinable
    static var name: String { "Contains" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      guard input == output else { return false }
      found = true
      return true
    }

    @inlinable
    var result: Output? { found }
  }
}
