public import StreamCore

extension Publisher {
  /// Collects every value of the upstream and sends them in one array when it finishes.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .collect()
  ///   .sink { print($0) }  // prints [1, 2, 3]
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The array (empty if the upstream sent nothing) goes
  /// downstream, followed by `.finished`, once the upstream has finished and the subscriber has
  /// requested a value; an upstream failure passes through at once.
  ///
  /// Memory grows with every value: use it on publishers that finish.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Returns: A publisher that sends the upstream's values in one array.
  @inlinable
  public func collect() -> Publishers.Collect<Self> {
    Publishers.Collect(upstream: self)
  }
}

extension Publishers {
  /// A publisher that sends every value of its upstream in one array, once it finishes.
  ///
  /// ```swift
  /// let all = Publishers.Collect(upstream: [1, 2, 3].publisher)
  /// ```
  ///
  /// See ``StreamCore/Publisher/collect()``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct Collect<Upstream: Publisher>: Publisher {
    public typealias Output = [Upstream.Output]
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// Creates the publisher; see ``StreamCore/Publisher/collect()``.
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

extension Publishers.Collect: Equatable where Upstream: Equatable {}

extension Publishers.Collect: Sendable where Upstream: Sendable {}

extension Publishers.Collect {
  /// Appends each value.
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
    var values: [Upstream.Output] = []

    @inlinable
    init() {
    }

    @inlinable
    static var name: String { "Collect" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      values.append(input)
      return false
    }

    @inlinable
    var result: Output? { values }

    /// Only the number of values collected, as Combine's `Collect` subscription shows.
    @inlinable
    static func mirrorChildren(
      downstream: Any,
      result: Output?,
      initial: Output?,
      status: SubscriptionStatus
    ) -> [Mirror.Child] {
      [("count", result?.count ?? 0)]
    }
  }
}
