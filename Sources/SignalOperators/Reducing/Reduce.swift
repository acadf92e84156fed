public import StreamCore

extension Publisher {
  /// Folds every value of the upstream into one result, sent when the upstream finishes.
  ///
  /// ```swift
  /// [1, 2, 3].publisher
  ///   .reduce(0, +)
  ///   .sink { print($0) }  // prints 6
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The result (`initialResult` if the upstream sent
  /// nothing) goes downstream, followed by `.finished`, once the upstream has finished and the
  /// subscriber has requested a value; an upstream failure passes through at once.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The result before any value arrives.
  ///   - nextPartialResult: Folds a value into the result so far.
  /// - Returns: A publisher that sends the folded result.
  @inlinable
  public func reduce<T>(
    _ initialResult: T,
    _ nextPartialResult: @escaping (T, Output) -> T
  ) -> Publishers.Reduce<Self, T> {
    Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
  }
}

extension Publishers {
  /// A publisher that folds its upstream's values into one result, sent when it finishes.
  ///
  /// ```swift
  /// let sum = Publishers.Reduce(upstream: [1, 2].publisher, initial: 0, nextPartialResult: +)
  /// ```
  ///
  /// See ``StreamCore/Publisher/reduce(_:_:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct Reduce<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// The result before any value arrives.
    public let initial: Output

    /// Folds a value into the result so far.
    public let nextPartialResult: (Output, Upstream.Output) -> Output

    /// Creates the publisher; see ``StreamCore/Publisher/reduce(_:_:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher this one reduces.
    ///   - initial: The result before any value arrives.
    ///   - nextPartialResult: Folds a value into the result so far.
    @inlinable
    public init(
      upstream: Upstream,
      initial: Output,
      nextPartialResult: @escaping (Output, Upstream.Output) -> Output
    ) {
      self.upstream = upstream
      self.initial = initial
      self.nextPartialResult = nextPartialResult
    }

    /// Subscribes `subscriber` to the reduced result of ``upstream``.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ReduceProducer(
          downstream: subscriber,
          reducer: Reducer(accumulator: initial, next: nextPartialResult)
        )
      )
    }
  }
}

extension Publishers.Reduce {
  /// Folds each value into `accumulator`.
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
    var accumulator: Output

    @usableFromInline
    let next: (Output, Upstream.Output) -> Output

    @inlinable
    init(accumulator: Output, next: @escaping (Output, Upstream.Output) -> Output) {
      self.accumulator = accumulator
      self.next = next
    }

    @inlinable
    static var name: String { "Reduce" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) -> Bool {
      accumulator = next(accumulator, input)
      return false
    }

    @inlinable
    var result: Output? { accumulator }
  }
}
