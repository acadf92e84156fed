public import StreamCore

extension Publisher {
  /// Publishes each step of an accumulation whose closure may throw.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .tryScan(0) { total, value in try checkedAdd(total, value) }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })  // 1, 3, 6
  /// ```
  ///
  /// Each value is combined with the previous result (`initialResult` for the first), and the
  /// new result is published. When `nextPartialResult` throws, the upstream is cancelled and the
  /// error is sent downstream once. Upstream errors pass on as `any Error`.
  ///
  /// > Thread safety: `nextPartialResult` runs on the thread the upstream sends on, one value at
  /// > a time. `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The result the first value is combined with.
  ///   - nextPartialResult: Combines the previous result with a new value, or throws.
  /// - Returns: A publisher of the running results, failing with the first thrown error.
  @inlinable
  public func tryScan<T>(
    _ initialResult: T,
    _ nextPartialResult: @escaping (T, Output) throws -> T
  ) -> Publishers.TryScan<Self, T> {
    Publishers.TryScan(
      upstream: self,
      initialResult: initialResult,
      nextPartialResult: nextPartialResult
    )
  }
}

extension Publishers {
  /// A publisher of the running results of an accumulation whose closure may throw.
  ///
  /// ```swift
  /// let totals = Publishers.TryScan(upstream: amounts, initialResult: 0) { try add($0, $1) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryScan(_:_:)``. Its subscription's description is `"TryScan"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct TryScan<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = any Error

    /// The publisher whose values are accumulated.
    public let upstream: Upstream

    /// The result the first value is combined with.
    public let initialResult: Output

    /// Combines the previous result with a new value, or throws.
    public let nextPartialResult: (Output, Upstream.Output) throws -> Output

    /// Creates a publisher of the running results of accumulating `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are accumulated.
    ///   - initialResult: The result the first value is combined with.
    ///   - nextPartialResult: Combines the previous result with a new value, or throws.
    @inlinable
    public init(
      upstream: Upstream,
      initialResult: Output,
      nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
    ) {
      self.upstream = upstream
      self.initialResult = initialResult
      self.nextPartialResult = nextPartialResult
    }

    /// Subscribes `subscriber` to the upstream through a `"TryScan"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: ThrowingStepInner<
          Transforming.TryScanStep<Upstream.Output, Output>, Upstream.Failure, S
        >(
          downstream: subscriber,
          step: Transforming.TryScanStep<Upstream.Output, Output>(
            result: initialResult,
            nextPartialResult: nextPartialResult
          )
        )
      )
    }
  }
}

extension Transforming {
  @usableFromInline
  struct TryScanStep<Input, Output>: ThrowingStep {
    @usableFromInline
    let nextPartialResult: (Output, Input) throws -> Output

    @usableFromInline
    var result: Output

    @inlinable
    init(result: Output, nextPartialResult: @escaping (Output, Input) throws -> Output) {
      self.result = result
      self.nextPartialResult = nextPartialResult
    }

    @inlinable
    static var name: String { "TryScan" }

    /// The downstream, the status and the result so far, as Combine's `TryScan` subscription
    /// shows.
    @inlinable
    static func mirrorChildren(
      downstream: Any,
      step: Self?,
      status: SubscriptionStatus
    )
      -> [Mirror.Child]
    {
      [
        ("downstream", downstream), ("status", status),
        ("result", step.map { $0.result as Any } ?? (nil as Output? as Any)),
      ]
    }

    @inlinable
    static var isStateful: Bool { true }

    @inlinable
    static var trapsEventsBeforeSubscription: Bool { false }

    @usableFromInline
    static var trapsRequestNone: Bool { false }

    @inlinable
    mutating func apply(_ input: Input) throws -> Output? {
      result = try nextPartialResult(result, input)
      return result
    }
  }
}
