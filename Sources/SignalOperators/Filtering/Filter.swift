public import StreamCore

extension Publisher {
  /// Republishes only the values that satisfy a predicate.
  ///
  /// ```swift
  /// [1, 2, 3, 4].publisher
  ///   .filter { $0.isMultiple(of: 2) }
  ///   .sink { print($0) }  // 2, 4
  /// ```
  ///
  /// The subscriber gets the upstream's own subscription; for each value left out, the operator
  /// asks the upstream for one more, so the subscriber's demand is still met.
  ///
  /// > Thread safety: `isIncluded` runs on the thread the upstream sends on, one value at a time.
  ///
  /// - Parameter isIncluded: Returns `true` for the values to publish.
  /// - Returns: A publisher of the values that pass.
  @inlinable
  public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
    Publishers.Filter(upstream: self, isIncluded: isIncluded)
  }
}

extension Publishers {
  /// A publisher that republishes only the upstream values that satisfy a predicate.
  ///
  /// ```swift
  /// let evens = Publishers.Filter(upstream: [1, 2, 3].publisher) { $0.isMultiple(of: 2) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/filter(_:)``. Chained filters fuse into one `Filter`.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct Filter<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are filtered.
    public let upstream: Upstream

    /// The predicate deciding which values to publish.
    public let isIncluded: (Upstream.Output) -> Bool

    /// Creates a publisher that republishes the values of `upstream` that satisfy `isIncluded`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are filtered.
    ///   - isIncluded: Returns `true` for the values to publish.
    @inlinable
    public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.isIncluded = isIncluded
    }

    /// Subscribes `subscriber` to the upstream through a filtering subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: Transforming.FilterInner(downstream: subscriber, isIncluded: isIncluded)
      )
    }
  }
}

extension Publishers.Filter {
  /// Fuses a second predicate into this one; a value must pass both.
  ///
  /// ```swift
  /// let small = values.filter { $0 > 0 }.filter { $0 < 10 }  // one Publishers.Filter
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter isIncluded: Checked after the current predicate passes.
  /// - Returns: One `Filter` checking both predicates.
  @inlinable
  public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Upstream> {
    let first = self.isIncluded
    return Publishers.Filter(upstream: upstream) { first($0) && isIncluded($0) }
  }

  /// Fuses a throwing predicate into this one; a value must pass both.
  ///
  /// ```swift
  /// let valid = values.filter { $0 > 0 }.tryFilter { try check($0) }  // one TryFilter
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter isIncluded: Checked after the current predicate passes; may throw.
  /// - Returns: One `TryFilter` checking both predicates.
  @inlinable
  public func tryFilter(
    _ isIncluded: @escaping (Output) throws -> Bool
  ) -> Publishers.TryFilter<Upstream> {
    let first = self.isIncluded
    return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
  }
}

extension Transforming {
  /// The subscriber that drops values; it hands the upstream's subscription on as is.
  @usableFromInline
  struct FilterInner<Downstream: Subscriber>: Subscriber, ChildlessReflection {
    @usableFromInline
    typealias Input = Downstream.Input

    @usableFromInline
    typealias Failure = Downstream.Failure

    @usableFromInline
    let downstream: Downstream

    @usableFromInline
    let isIncluded: (Input) -> Bool

    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, isIncluded: @escaping (Input) -> Bool) {
      self.downstream = downstream
      self.isIncluded = isIncluded
    }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      isIncluded(input) ? downstream.receive(input) : .max(1)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      downstream.receive(completion: completion)
    }

    @usableFromInline
    var description: String { "Filter" }
  }
}
