public import StreamCore

extension Publisher {
  /// Sends `true` as soon as the upstream sends a value that matches, or `false` if it finishes
  /// without.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .tryContains { $0 > 2 }
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints true
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The answer goes downstream, followed by `.finished`,
  /// once a value matches (then the upstream is cancelled) or the upstream has finished, and the
  /// subscriber has requested a value; an upstream failure passes through at once. An error thrown
  /// by `predicate` cancels the upstream and fails the publisher with it.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter predicate: Returns whether a value matches, or throws.
  /// - Returns: A publisher that sends whether a value matched, or fails with the thrown error.
  @inlinable
  public func tryContains(
    where predicate: @escaping (Output) throws -> Bool
  ) -> Publishers.TryContainsWhere<Self> {
    Publishers.TryContainsWhere(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that sends whether its upstream sends a value matching a predicate that may throw.
  ///
  /// ```swift
  /// let hasEven = Publishers.TryContainsWhere(upstream: [1, 2].publisher) { $0 % 2 == 0 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryContains(where:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct TryContainsWhere<Upstream: Publisher>: Publisher {
    public typealias Output = Bool
    public typealias Failure = any Error

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Returns whether a value matches, or throws.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates the publisher; see ``StreamCore/Publisher/tryContains(where:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher this one reduces.
    ///   - predicate: Returns whether a value matches, or throws.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
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

extension Publishers.TryContainsWhere {
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
    let predicate: (Upstream.Output) throws -> Bool

    @usableFromInline
    var found = false

    @inlinable
    init(predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.predicate = predicate
    }

    @inlinable
    static var name: String { "TryContainsWhere" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) throws -> Bool {
      guard try predicate(input) else { return false }
      found = true
      return true
    }

    @inlinable
    var result: Output? { found }

    @inlinable
    static func failure(_ error: Upstream.Failure) -> any Error { error }
  }
}
