public import StreamCore

extension Publisher {
  /// Transforms each value with a closure that may throw, and republishes the non-`nil` results.
  ///
  /// ```swift
  /// ["1", "", "3"].publisher
  ///   .tryCompactMap { text -> Int? in
  ///     if text.isEmpty { throw EmptyError() }
  ///     return Int(text)
  ///   }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })  // 1, failure
  /// ```
  ///
  /// For each `nil` result, the operator asks the upstream for one more value. When `transform`
  /// throws, the upstream is cancelled and the error is sent downstream once; anything the
  /// upstream sends later is ignored. Upstream errors pass on as `any Error`.
  ///
  /// > Thread safety: `transform` runs on the thread the upstream sends on, one value at a time.
  /// > `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter transform: Turns an upstream value into a value to publish, `nil` to skip it,
  ///   or throws.
  /// - Returns: A publisher of the non-`nil` results, failing with the first thrown error.
  @inlinable
  public func tryCompactMap<T>(
    _ transform: @escaping (Output) throws -> T?
  ) -> Publishers.TryCompactMap<Self, T> {
    Publishers.TryCompactMap(upstream: self, transform: transform)
  }
}

extension Publishers {
  /// A publisher that republishes the non-`nil` results of a transform that may throw.
  ///
  /// ```swift
  /// let numbers = Publishers.TryCompactMap(upstream: texts) { try parseIfPresent($0) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryCompactMap(_:)``. Its subscription's description is
  /// `"TryCompactMap"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = any Error

    /// The publisher whose values are transformed.
    public let upstream: Upstream

    /// The closure that transforms each value, returning `nil` to skip it, or throwing.
    public let transform: (Upstream.Output) throws -> Output?

    /// Creates a publisher that republishes the non-`nil` results of `transform`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are transformed.
    ///   - transform: Turns an upstream value into a value to publish, `nil` to skip it, or
    ///     throws.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Subscribes `subscriber` to the upstream through a `"TryCompactMap"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: ThrowingStepInner<
          Transforming.TryCompactMapStep<Upstream.Output, Output>, Upstream.Failure, S
        >(
          downstream: subscriber,
          step: Transforming.TryCompactMapStep<Upstream.Output, Output>(transform: transform)
        )
      )
    }
  }
}

extension Publishers.TryCompactMap {
  /// Fuses an optional transform into this one.
  ///
  /// ```swift
  /// let ids = texts.tryCompactMap { try parse($0) }.compactMap { User.ID($0) }  // one
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter transform: Applied to each non-`nil` result of the current transform.
  /// - Returns: One `TryCompactMap` running both transforms.
  @inlinable
  public func compactMap<T>(
    _ transform: @escaping (Output) -> T?
  ) -> Publishers.TryCompactMap<Upstream, T> {
    let first = self.transform
    return Publishers.TryCompactMap(upstream: upstream) { try first($0).flatMap(transform) }
  }
}

extension Transforming {
  @usableFromInline
  struct TryCompactMapStep<Input, Output>: ThrowingStep {
    @usableFromInline
    let transform: (Input) throws -> Output?

    @inlinable
    init(transform: @escaping (Input) throws -> Output?) {
      self.transform = transform
    }

    @inlinable
    static var name: String { "TryCompactMap" }

    /// The downstream, as Combine's `TryCompactMap` subscription shows.
    @inlinable
    static func mirrorChildren(
      downstream: Any,
      step: Self?,
      status: SubscriptionStatus
    )
      -> [Mirror.Child]
    { [("downstream", downstream)] }

    @inlinable
    static var isStateful: Bool { false }

    @inlinable
    static var trapsEventsBeforeSubscription: Bool { true }

    @inlinable
    func apply(_ input: Input) throws -> Output? {
      try transform(input)
    }
  }
}
