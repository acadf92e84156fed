public import StreamCore

extension Publisher {
  /// Sends `true` as soon as the upstream sends a value that matches, or `false` if it finishes
  /// without.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .contains { $0 > 2 }
  ///   .sink { print($0) }  // prints true
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The answer goes downstream, followed by `.finished`,
  /// once a value matches (then the upstream is cancelled) or the upstream has finished, and the
  /// subscriber has requested a value; an upstream failure passes through at once.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter predicate: Returns whether a value matches.
  /// - Returns: A publisher that sends whether a value matched.
  @inlinable
  public func contains(
    where predicate: @escaping (Output) -> Bool
  ) -> Publishers.ContainsWhere<Self> {
    Publishers.ContainsWhere(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that sends whether its upstream sends a value matching a predicate.
  ///
  /// ```swift
  /// let hasEven = Publishers.ContainsWhere(upstream: [1, 2].publisher) { $0 % 2 == 0 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/contains(where:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct ContainsWhere<Upstream: Publisher>: Publisher {
    public typealias Output = Bool
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Returns whether a value matches.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates the publisher; see ``StreamCore/Publisher/contains(where:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher this one reduces.
    ///   - predicate: Returns whether a value matches.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Subscribes `subscriber` to the reduced result of ``upstream``.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ReduceProducer(downstream: subscriber, reducer: Reducer(predicate: predicate))
      )
    }
  }
}

extension Publishers.ContainsWhere {
  /// Stops at the first value that matches.
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
    let predicate: (Upstream.Output) -> Bool

    @usableFromInline
    var found = false

    @inlinable
    init(predicate: @escaping (Upstream.Output) -> Bool) {
      self.predicate = predicate
    }

    @inlinable
    static var name: String { "ContainsWhere" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      guard predicate(input) else { return false }
      found = true
      return true
    }

    @inlinable
    var result: Output? { found }
  }
}
