public import StreamCore

extension Publisher {
  /// Sends the last value of the upstream that matches, once it finishes.
  ///
  /// ```swift
  /// [1, 2, 3, 4, 5].publisher
  ///   .tryLast { $0 % 2 == 0 }
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints 4
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The value (nothing if none matched) goes downstream,
  /// followed by `.finished`, once the upstream has finished and the subscriber has requested a
  /// value; an upstream failure passes through at once. An error thrown by `predicate` cancels the
  /// upstream and fails the publisher with it.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter predicate: Returns whether a value matches, or throws.
  /// - Returns: A publisher that sends the last matching value, or fails with the thrown error.
  @inlinable
  public func tryLast(
    where predicate: @escaping (Output) throws -> Bool
  ) -> Publishers.TryLastWhere<Self> {
    Publishers.TryLastWhere(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that sends the last value of its upstream that matches a predicate that may throw.
  ///
  /// ```swift
  /// let lastEven = Publishers.TryLastWhere(upstream: [2, 4, 5].publisher) { $0 % 2 == 0 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryLast(where:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct TryLastWhere<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Returns whether a value matches, or throws.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates the publisher; see ``StreamCore/Publisher/tryLast(where:)``.
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

extension Publishers.TryLastWhere {
  /// Keeps the latest value that matches.
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
    var last: Upstream.Output?

    @inlinable
    init(predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.predicate = predicate
    }

    @inlinable
    static var name: String { "TryLastWhere" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) throws -> Bool {
      if try predicate(input) { last = input }
      return false
    }

    @inlinable
    var result: Output? { last }

    @inlinable
    static func failure(_ error: Upstream.Failure) -> any Error { error }
  }
}
