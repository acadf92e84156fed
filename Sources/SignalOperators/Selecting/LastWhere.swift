public import StreamCore

extension Publisher {
  /// Sends the last value of the upstream that matches, once it finishes.
  ///
  /// ```swift
  /// [1, 2, 3, 4, 5].publisher
  ///   .last { $0 % 2 == 0 }
  ///   .sink { print($0) }  // prints 4
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The value (nothing if none matched) goes downstream,
  /// followed by `.finished`, once the upstream has finished and the subscriber has requested a
  /// value; an upstream failure passes through at once.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameter predicate: Returns whether a value matches.
  /// - Returns: A publisher that sends the last matching value.
  @inlinable
  public func last(
    where predicate: @escaping (Output) -> Bool
  ) -> Publishers.LastWhere<Self> {
    Publishers.LastWhere(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that sends the last value of its upstream that matches a predicate.
  ///
  /// ```swift
  /// let lastEven = Publishers.LastWhere(upstream: [2, 4, 5].publisher) { $0 % 2 == 0 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/last(where:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct LastWhere<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Returns whether a value matches.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates the publisher; see ``StreamCore/Publisher/last(where:)``.
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

extension Publishers.LastWhere {
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
    let predicate: (Upstream.Output) -> Bool

    @usableFromInline
    var last: Upstream.Output?

    @inlinable
    init(predicate: @escaping (Upstream.Output) -> Bool) {
      self.predicate = predicate
    }

    @inlinable
    static var name: String { "LastWhere" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      if predicate(input) { last = input }
      return false
    }

    @inlinable
    var result: Output? { last }
  }
}
