public import StreamCore

extension Publisher {
  /// Publishes each step of an accumulation over the upstream's values.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .scan(0, +)
  ///   .sink { print($0) }  // 1, 3, 6
  /// ```
  ///
  /// Each value is combined with the previous result (`initialResult` for the first), and the
  /// new result is published. Each subscription starts again from `initialResult`.
  ///
  /// > Thread safety: `nextPartialResult` runs on the thread the upstream sends on, one value at
  /// > a time.
  ///
  /// - Parameters:
  ///   - initialResult: The result the first value is combined with.
  ///   - nextPartialResult: Combines the previous result with a new value.
  /// - Returns: A publisher of the running results.
  @inlinable
  public func scan<T>(
    _ initialResult: T,
    _ nextPartialResult: @escaping (T, Output) -> T
  ) -> Publishers.Scan<Self, T> {
    Publishers.Scan(
      upstream: self,
      initialResult: initialResult,
      nextPartialResult: nextPartialResult
    )
  }
}

extension Publishers {
  /// A publisher of the running results of an accumulation.
  ///
  /// ```swift
  /// let totals = Publishers.Scan(upstream: amounts, initialResult: 0, nextPartialResult: +)
  /// ```
  ///
  /// See ``StreamCore/Publisher/scan(_:_:)``.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct Scan<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are accumulated.
    public let upstream: Upstream

    /// The result the first value is combined with.
    public let initialResult: Output

    /// Combines the previous result with a new value.
    public let nextPartialResult: (Output, Upstream.Output) -> Output

    /// Creates a publisher of the running results of accumulating `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are accumulated.
    ///   - initialResult: The result the first value is combined with.
    ///   - nextPartialResult: Combines the previous result with a new value.
    @inlinable
    public init(
      upstream: Upstream,
      initialResult: Output,
      nextPartialResult: @escaping (Output, Upstream.Output) -> Output
    ) {
      self.upstream = upstream
      self.initialResult = initialResult
      self.nextPartialResult = nextPartialResult
    }

    /// Subscribes `subscriber` to the upstream through an accumulating subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: Transforming.ScanInner(
          downstream: subscriber,
          result: initialResult,
          nextPartialResult: nextPartialResult
        )
      )
    }
  }
}

extension Transforming {
  /// The subscriber that keeps the running result; it hands the upstream's subscription on.
  ///
  /// `result` is only touched by `receive(_:)`, which the upstream calls one value at a time.
  @usableFromInline
  final class ScanInner<Input, Output, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable
  where Downstream.Input == Output {
    @usableFromInline
    typealias Failure = Downstream.Failure

    @usableFromInline
    let downstream: Downstream

    @usableFromInline
    let nextPartialResult: (Output, Input) -> Output

    @usableFromInline
    var result: Output

    @inlinable
    init(
      downstream: Downstream,
      result: Output,
      nextPartialResult: @escaping (Output, Input) -> Output
    ) {
      self.downstream = downstream
      self.result = result
      self.nextPartialResult = nextPartialResult
    }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      result = nextPartialResult(result, input)
      return downstream.receive(result)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      downstream.receive(completion: completion)
    }

    @usableFromInline
    var description: String { "Scan" }

    @usableFromInline
    var playgroundDescription: Any { description }

    /// The downstream and the running result, as Combine's mirror shows.
    @usableFromInline
    var customMirror: Mirror {
      Mirror(self, children: ["downstream": downstream, "result": result])
    }
  }
}
