public import StreamCore

extension Publisher {
  /// Republishes only the values that satisfy a predicate that may throw.
  ///
  /// ```swift
  /// [1, 2, -1].publisher
  ///   .tryFilter { value in
  ///     guard value >= 0 else { throw NegativeError() }
  ///     return value.isMultiple(of: 2)
  ///   }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })  // 2, failure
  /// ```
  ///
  /// For each value left out, the operator asks the upstream for one more. When `isIncluded`
  /// throws, the upstream is cancelled and the error is sent downstream once; anything the
  /// upstream sends later is ignored. Upstream errors pass on as `any Error`.
  ///
  /// > Thread safety: `isIncluded` runs on the thread the upstream sends on, one value at a time.
  /// > `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter isIncluded: Returns `true` for the values to publish, or throws.
  /// - Returns: A publisher of the values that pass, failing with the first thrown error.
  @inlinable
  public func tryFilter(
    _ isIncluded: @escaping (Output) throws -> Bool
  ) -> Publishers.TryFilter<Self> {
    Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
  }
}

extension Publishers {
  /// A publisher that republishes the upstream values that satisfy a predicate that may throw.
  ///
  /// ```swift
  /// let valid = Publishers.TryFilter(upstream: values) { try check($0) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryFilter(_:)``. Its subscription's description is
  /// `"TryFilter"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct TryFilter<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher whose values are filtered.
    public let upstream: Upstream

    /// The predicate deciding which values to publish.
    public let isIncluded: (Upstream.Output) throws -> Bool

    /// Creates a publisher that republishes the values of `upstream` that satisfy `isIncluded`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are filtered.
    ///   - isIncluded: Returns `true` for the values to publish, or throws.
    @inlinable
    public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
      self.upstream = upstream
      self.isIncluded = isIncluded
    }

    /// Subscribes `subscriber` to the upstream through a `"TryFilter"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: ThrowingStepInner<
          Transforming.TryFilterStep<Upstream.Output>, Upstream.Failure, S
        >(
          downstream: subscriber,
          step: Transforming.TryFilterStep<Upstream.Output>(isIncluded: isIncluded)
        )
      )
    }
  }
}

extension Publishers.TryFilter {
  /// Fuses a predicate into this one; a value must pass both.
  ///
  /// ```swift
  /// let valid = values.tryFilter { try check($0) }.filter { $0 < 10 }  // one TryFilter
  /// ```
  ///
  /// > Thread safety: A value type.
  ///
  /// - Parameter isIncluded: Checked after the current predicate passes.
  /// - Returns: One `TryFilter` checking both predicates.
  @inlinable
  public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.TryFilter<Upstream> {
    let first = self.isIncluded
    return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
  }

  /// Fuses a throwing predicate into this one; a value must pass both.
  ///
  /// ```swift
  /// let valid = values.tryFilter { try check($0) }.tryFilter { try verify($0) }  // one
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
  @usableFromInline
  struct TryFilterStep<Input>: ThrowingStep {
    @usableFromInline
    let isIncluded: (Input) throws -> Bool

    @inlinable
    init(isIncluded: @escaping (Input) throws -> Bool) {
      self.isIncluded = isIncluded
    }

    @inlinable
    static var name: String { "TryFilter" }

    /// The downstream, as Combine's `TryFilter` subscription shows.
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
    func apply(_ input: Input) throws -> Input? {
      try isIncluded(input) ? input : nil
    }
  }
}
