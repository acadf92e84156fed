public import StreamCore

extension Publisher {
  /// Transforms each value with a closure and republishes the non-`nil` results.
  ///
  /// ```swift
  /// ["1", "x", "3"].publisher
  ///   .compactMap { Int($0) }
  ///   .sink { print($0) }  // 1, 3
  /// ```
  ///
  /// The subscriber gets the upstream's own subscription; for each `nil` result, the operator
  /// asks the upstream for one more value.
  ///
  /// > Thread safety: `transform` runs on the thread the upstream sends on, one value at a time.
  ///
  /// - Parameter transform: Turns an upstream value into a value to publish, or `nil` to skip it.
  /// - Returns: A publisher of the non-`nil` results.
  @inlinable
  public func compactMap<T>(
    _ transform: @escaping (Output) -> T?
  ) -> Publishers.CompactMap<Self, T> {
    Publishers.CompactMap(upstream: self, transform: transform)
  }
}

extension Publishers {
  /// A publisher that republishes the non-`nil` results of a transform.
  ///
  /// ```swift
  /// let numbers = Publishers.CompactMap(upstream: texts) { Int($0) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/compactMap(_:)``. A following `compactMap` or `map` fuses into
  /// one `CompactMap`.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct CompactMap<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are transformed.
    public let upstream: Upstream

    /// The closure that transforms each value, returning `nil` to skip it.
    public let transform: (Upstream.Output) -> Output?

    /// Creates a publisher that republishes the non-`nil` results of `transform`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are transformed.
    ///   - transform: Turns an upstream value into a value to publish, or `nil` to skip it.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Subscribes `subscriber` to the upstream through a transforming subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: Transforming.CompactMapInner(downstream: subscriber, transform: transform)
      )
    }
  }
}

extension Publishers.CompactMap {
  /// Fuses a second optional transform into this one.
  ///
  /// ```swift
  /// let ids = texts.compactMap { Int($0) }.compactMap { User.ID($0) }  // one CompactMap
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter transform: Applied to each non-`nil` result of the current transform.
  /// - Returns: One `CompactMap` running both transforms.
  @inlinable
  public func compactMap<T>(
    _ transform: @escaping (Output) -> T?
  ) -> Publishers.CompactMap<Upstream, T> {
    let first = self.transform
    return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
  }

  /// Fuses a transform into this one.
  ///
  /// ```swift
  /// let doubled = texts.compactMap { Int($0) }.map { $0 * 2 }  // one CompactMap
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter transform: Applied to each non-`nil` result of the current transform.
  /// - Returns: One `CompactMap` running both transforms.
  @inlinable
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.CompactMap<Upstream, T> {
    let first = self.transform
    return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
  }
}

extension Transforming {
  /// The subscriber that transforms and drops values; it hands the upstream's subscription on.
  @usableFromInline
  struct CompactMapInner<Input, Output, Downstream: Subscriber>: Subscriber,
    ChildlessReflection
  where Downstream.Input == Output {
    @usableFromInline
    typealias Failure = Downstream.Failure

    @usableFromInline
    let downstream: Downstream

    @usableFromInline
    let transform: (Input) -> Output?

    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, transform: @escaping (Input) -> Output?) {
      self.downstream = downstream
      self.transform = transform
    }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      guard let output = transform(input) else { return .max(1) }
      return downstream.receive(output)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      downstream.receive(completion: completion)
    }

    @usableFromInline
    var description: String { "CompactMap" }
  }
}
