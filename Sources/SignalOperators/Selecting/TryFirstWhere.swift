public import StreamCore

extension Publisher {
  /// Sends the first value of the upstream that matches, then finishes.
  ///
  /// ```swift
  /// [1, 2, 3, 4].publisher
  ///   .tryFirst { $0 % 2 == 0 }
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints 2
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The value (nothing if none matched) goes downstream,
  /// followed by `.finished`, once a value matches (then the upstream is cancelled) or the upstream
  /// has finished, and the subscriber has requested a value; an upstream failure passes through at
  /// once. An error thrown by `predicate` cancels the upstream and fails the publisher with it.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter predicate: Returns whether a value matches, or throws.
  /// - Returns: A publisher that sends the first matching value, or fails with the thrown error.
  @inlinable
  public func tryFirst(
    where predicate: @escaping (Output) throws -> Bool
  ) -> Publishers.TryFirstWhere<Self> {
    Publishers.TryFirstWhere(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that sends the first value of its upstream that matches a predicate that may
  /// throw.
  ///
  /// ```swift
  /// let firstEven = Publishers.TryFirstWhere(upstream: [1, 2].publisher) { $0 % 2 == 0 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryFirst(where:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct TryFirstWhere<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Returns whether a value matches, or throws.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates the publisher; see ``StreamCore/Publisher/tryFirst(where:)``.
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

extension Publishers.TryFirstWhere {
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
    var first: Upstream.Output?

    @inlinable
    init(predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.predicate = predicate
    }

    @inlinable
    static var name: String { "TryFirstWhere" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) throws -> Bool {
      guard try predicate(input) else { return false }
      first = input
      return true
    }

    @inlinable
    var result: Output? { first }

    @inlinable
    static func failure(_ error: Upstream.Failure) -> any Error { error }
  }
}
