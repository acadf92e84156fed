public import StreamCore

extension Publisher {
  /// Folds every value of the upstream into one result with a closure that may throw.
  ///
  /// ```swift
  /// struct Overflow: Error {}
  /// [1, 2, 3].publisher
  ///   .tryReduce(0) { sum, value in
  ///     guard sum < 100 else { throw Overflow() }
  ///     return sum + value
  ///   }
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints 6
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The result (`initialResult` if the upstream sent
  /// nothing) goes downstream, followed by `.finished`, once the upstream has finished and the
  /// subscriber has requested a value; an upstream failure passes through at once. An error thrown
  /// by `nextPartialResult` cancels the upstream and fails the publisher with it.
  ///
  /// > Thread safety: Upstream may send from any thread. The result and the completion are
  /// > delivered on the thread that ends the upstream (or sends the deciding value), or on the
  /// > thread whose first `request(_:)` finds the result ready. `request(_:)` and `cancel()` are
  /// > safe from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The result before any value arrives.
  ///   - nextPartialResult: Folds a value into the result so far, or throws.
  /// - Returns: A publisher that sends the folded result or fails with the thrown error.
  @inlinable
  public func tryReduce<T>(
    _ initialResult: T,
    _ nextPartialResult: @escaping (T, Output) throws -> T
  ) -> Publishers.TryReduce<Self, T> {
    Publishers.TryReduce(
      upstream: self,
      initial: initialResult,
      nextPartialResult: nextPartialResult
    )
  }
}

extension Publishers {
  /// A publisher that folds its upstream's values with a throwing closure into one result.
  ///
  /// ```swift
  /// let sum = Publishers.TryReduce(upstream: [1, 2].publisher, initial: 0) { $0 + $1 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryReduce(_:_:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct TryReduce<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = any Error

    /// The publisher this one reduces.
    public let upstream: Upstream

    /// The result before any value arrives.
    public let initial: Output

    /// Folds a value into the result so far, or throws.
    public let nextPartialResult: (Output, Upstream.Output) throws -> Output

    /// Creates the publisher; see ``StreamCore/Publisher/tryReduce(_:_:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher this one reduces.
    ///   - initial: The result before any value arrives.
    ///   - nextPartialResult: Folds a value into the result so far, or throws.
    @inlinable
    public init(
      upstream: Upstream,
      initial: Output,
      nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
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

extension Publishers.TryReduce {
  /// Folds each value into `accumulator`; a thrown error ends the stream.
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
    let next: (Output, Upstream.Output) throws -> Output

    @inlinable
    init(accumulator: Output, next: @escaping (Output, Upstream.Output) throws -> Output) {
      self.accumulator = accumulator
      self.next = next
    }

    @inlinable
    static var name: String { "TryReduce" }

    @inlinable
    mutating func reduce(_ input: Upstream.Output) throws -> Bool {
      accumulator = try next(accumulator, input)
      return false
    }

    @inlinable
    var result: Output? { accumulator }

    @inlinable
    static func failure(_ error: Upstream.Failure) -> any Error { error }
  }
}
