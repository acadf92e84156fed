public import StreamCore

extension Publisher {
  /// Transforms each value from the upstream with a closure.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .map { $0 * 10 }
  ///   .sink { print($0) }  // 10, 20, 30
  /// ```
  ///
  /// The subscriber gets the upstream's own subscription, so demand and cancellation go straight
  /// to the upstream and the operator adds no cost per value beyond the closure.
  ///
  /// > Thread safety: `transform` runs on the thread the upstream sends on, one value at a time.
  ///
  /// - Parameter transform: Turns an upstream value into the value to publish.
  /// - Returns: A publisher of the transformed values.
  @inlinable
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
    Publishers.Map(upstream: self, transform: transform)
  }

  /// Replaces each `nil` from the upstream with `output`.
  ///
  /// ```swift
  /// [1, nil, 3].publisher
  ///   .replaceNil(with: 0)
  ///   .sink { print($0) }  // 1, 0, 3
  /// ```
  ///
  /// As in Combine, this is a ``StreamCore/Publishers/Map`` that unwraps each value.
  ///
  /// > Thread safety: A value type; values pass on the upstream's thread.
  ///
  /// - Parameter output: The value to publish in place of `nil`.
  /// - Returns: A publisher of unwrapped values.
  @inlinable
  public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
    Publishers.Map(upstream: self) { $0 ?? output }
  }
}

extension Publishers {
  /// A publisher that transforms each upstream value with a closure.
  ///
  /// ```swift
  /// let doubled = Publishers.Map(upstream: [1, 2].publisher) { $0 * 2 }
  /// ```
  ///
  /// Made by `Publisher.map(_:)` with a closure. Chained `map`s fuse into one `Map`.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct Map<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are transformed.
    public let upstream: Upstream

    /// The closure that transforms each value.
    public let transform: (Upstream.Output) -> Output

    /// Creates a publisher that transforms each value of `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are transformed.
    ///   - transform: Turns an upstream value into the value to publish.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Subscribes `subscriber` to the upstream through a transforming subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      // `receive(subscriber:)`, not `subscribe(_:)`: see `Transforming`.
      upstream.receive(
        subscriber: Transforming.MapInner(downstream: subscriber, transform: transform)
      )
    }
  }
}

extension Publishers.Map {
  /// Fuses a second transform into this one.
  ///
  /// ```swift
  /// let both = values.map { $0 + 1 }.map { $0 * 2 }  // one Publishers.Map
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter transform: Applied to the result of the current transform.
  /// - Returns: One `Map` running both transforms.
  @inlinable
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Upstream, T> {
    let first = self.transform
    return Publishers.Map(upstream: upstream) { transform(first($0)) }
  }

  /// Fuses a throwing transform into this one.
  ///
  /// ```swift
  /// let parsed = lines.map { $0.trimmed }.tryMap { try parse($0) }  // one Publishers.TryMap
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter transform: Applied to the result of the current transform; may throw.
  /// - Returns: One `TryMap` running both transforms.
  @inlinable
  public func tryMap<T>(
    _ transform: @escaping (Output) throws -> T
  ) -> Publishers.TryMap<Upstream, T> {
    let first = self.transform
    return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
  }
}

extension Transforming {
  /// The subscriber that transforms each value; it hands the upstream's subscription on as is.
  @usableFromInline
  package struct MapInner<Input, Output, Downstream: Subscriber>: Subscriber,
    ChildlessReflection
  where Downstream.Input == Output {
    @usableFromInline
    package typealias Failure = Downstream.Failure

    @usableFromInline
    package let downstream: Downstream

    @usableFromInline
    package let transform: (Input) -> Output

    @usableFromInline
    package let combineIdentifier = CombineIdentifier()

    @inlinable
    package init(downstream: Downstream, transform: @escaping (Input) -> Output) {
      self.downstream = downstream
      self.transform = transform
    }

    @inlinable
    package func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    package func receive(_ input: Input) -> Subscribers.Demand {
      downstream.receive(transform(input))
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
      downstream.receive(completion: completion)
    }

    @usableFromInline
    package var description: String { "Map" }
  }
}
