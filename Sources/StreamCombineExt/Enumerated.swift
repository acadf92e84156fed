public import SignalOperators
public import StreamCore

extension Publisher {
  /// Pairs each value with its position, counting from `initial`.
  ///
  /// ```swift
  /// ["a", "b"].publisher.enumerated().sink { print($0.index, $0.element) }  // 0 a, 1 b
  /// ```
  ///
  /// Each subscription counts on its own, from `initial`. Demand and completion pass through.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Enumerated``.
  ///
  /// - Parameter initial: The index of the first value.
  /// - Returns: A publisher of `(index, element)` pairs.
  @inlinable
  public func enumerated(initial: Int = 0) -> Publishers.Enumerated<Self> {
    Publishers.Enumerated(upstream: self, initial: initial)
  }
}

extension Publishers {
  /// A publisher that pairs each upstream value with its index.
  ///
  /// ```swift
  /// let numbered = Publishers.Enumerated(upstream: ["a", "b"].publisher, initial: 1)
  /// // (index: 1, element: "a"), (index: 2, element: "b")
  /// ```
  ///
  /// Made by ``StreamCore/Publisher/enumerated(initial:)``. A `map` whose counter is made per
  /// subscription: the subscriber gets the upstream's own subscription.
  ///
  /// > Thread safety: A value type. The counter is touched only by the upstream's deliveries,
  /// > which come one at a time.
  public struct Enumerated<Upstream: Publisher>: Publisher {
    public typealias Output = (index: Int, element: Upstream.Output)
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are numbered.
    public let upstream: Upstream

    /// The index of the first value.
    public let initial: Int

    /// Creates a publisher that numbers the values of `upstream` from `initial`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are numbered.
    ///   - initial: The index of the first value.
    @inlinable
    public init(upstream: Upstream, initial: Int = 0) {
      self.upstream = upstream
      self.initial = initial
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      var next = initial
      upstream.receive(
        subscriber: Transforming.MapInner(downstream: subscriber) { element in
          defer { next += 1 }
          return (index: next, element: element)
        }
      )
    }
  }
}

extension Publishers.Enumerated: Sendable where Upstream: Sendable {}
