public import StreamCore

extension Publisher {
  /// Transforms each value from the upstream with a closure that may throw.
  ///
  /// ```swift
  /// ["1", "x"].publisher
  ///   .tryMap { text -> Int in
  ///     guard let number = Int(text) else { throw ParseError() }
  ///     return number
  ///   }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })  // 1, failure
  /// ```
  ///
  /// When `transform` throws, the upstream is cancelled and the error is sent downstream once;
  /// anything the upstream sends later is ignored. Upstream errors pass on as `any Error`.
  ///
  /// > Thread safety: `transform` runs on the thread the upstream sends on, one value at a time.
  /// > `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter transform: Turns an upstream value into the value to publish, or throws.
  /// - Returns: A publisher of the transformed values that fails with the first thrown error.
  @inlinable
  public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
    Publishers.TryMap(upstream: self, transform: transform)
  }
}

extension Publishers {
  /// A publisher that transforms each upstream value with a closure that may throw.
  ///
  /// ```swift
  /// let numbers = Publishers.TryMap(upstream: texts) { try parse($0) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryMap(_:)``. Its subscription's description is `"TryMap"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct TryMap<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = any Error

    /// The publisher whose values are transformed.
    public let upstream: Upstream

    /// The closure that transforms each value.
    public let transform: (Upstream.Output) throws -> Output

    /// Creates a publisher that transforms each value of `upstream` with a throwing closure.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are transformed.
    ///   - transform: Turns an upstream value into the value to publish, or throws.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Subscribes `subscriber` to the upstream through a `"TryMap"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: ThrowingStepInner<
          Transforming.TryMapStep<Upstream.Output, Output>, Upstream.Failure, S
        >(
          downstream: subscriber,
          step: Transforming.TryMapStep<Upstream.Output, Output>(transform: transform)
        )
      )
    }
  }
}

extension Publishers.TryMap {
  /// Fuses a transform into this one.
  ///
  /// ```swift
  /// let both = texts.tryMap { try parse($0) }.map { $0 * 2 }  // one Publishers.TryMap
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter transform: Applied to the result of the current transform.
  /// - Returns: One `TryMap` running both transforms.
  @inlinable
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.TryMap<Upstream, T> {
    let first = self.transform
    return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
  }

  /// Fuses a throwing transform into this one.
  ///
  /// ```swift
  /// let both = texts.tryMap { try parse($0) }.tryMap { try check($0) }  // one TryMap
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
    return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
  }
}

extension Transforming {
  @usableFromInline
  struct TryMapStep<Input, Output>: ThrowingStep {
    @usableFromInline
    let transform: (Input) throws -> Output

    @inlinable
    init(transform: @escaping (Input) throws -> Output) {
      self.transform = transform
    }

    @inlinable
    static var name: String { "TryMap" }

    @inlinable
    static var isStateful: Bool { false }

    @inlinable
    static var trapsEventsBeforeSubscription: Bool { false }

    @usableFromInline
    static var trapsRequestNone: Bool { false }

    @inlinable
    func apply(_ input: Input) throws -> Output? {
      try transform(input)
    }
  }
}
