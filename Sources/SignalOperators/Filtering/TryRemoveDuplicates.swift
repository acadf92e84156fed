public import StreamCore

extension Publisher {
  /// Republishes a value only if a predicate that may throw says it isn't a duplicate of the
  /// value before it.
  ///
  /// ```swift
  /// readings
  ///   .tryRemoveDuplicates { old, new in try closeEnough(old, new) }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  ///
  /// Each value is compared with the upstream value just before it. For each value left out,
  /// the operator asks the upstream for one more. When `predicate` throws, the upstream is
  /// cancelled and the error is sent downstream once. Upstream errors pass on as `any Error`.
  ///
  /// > Thread safety: `predicate` runs on the thread the upstream sends on, one value at a time.
  /// > `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter predicate: Returns `true` if the second value (the new one) duplicates the
  ///   first (the previous one), or throws.
  /// - Returns: A publisher without consecutive duplicates, failing with the first thrown error.
  @inlinable
  public func tryRemoveDuplicates(
    by predicate: @escaping (Output, Output) throws -> Bool
  ) -> Publishers.TryRemoveDuplicates<Self> {
    Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that leaves out duplicates, as judged by a predicate that may throw.
  ///
  /// ```swift
  /// let changes = Publishers.TryRemoveDuplicates(upstream: readings) { try same($0, $1) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryRemoveDuplicates(by:)``. Its subscription's description is
  /// `"TryRemoveDuplicates"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher whose duplicates are removed.
    public let upstream: Upstream

    /// Returns `true` if the second value duplicates the first, or throws.
    public let predicate: (Output, Output) throws -> Bool

    /// Creates a publisher that leaves out the duplicates of `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose duplicates are removed.
    ///   - predicate: Returns `true` if the second value duplicates the first, or throws.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Output, Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Subscribes `subscriber` to the upstream through a `"TryRemoveDuplicates"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Step = Transforming.RemoveDuplicatesStep<
        Output, Transforming.TryRemoveDuplicatesName
      >
      upstream.receive(
        subscriber: ThrowingStepInner<Step, Upstream.Failure, S>(
          downstream: subscriber,
          step: Step(predicate: predicate)
        )
      )
    }
  }
}

extension Transforming {
  /// The step of `removeDuplicates` and `tryRemoveDuplicates`: drops a value the predicate
  /// calls a duplicate of the one before. `Name` is the operator's name (its subscription's
  /// description); `removeDuplicates`'s predicate, which doesn't throw, is stored as throwing.
  @usableFromInline
  struct RemoveDuplicatesStep<Input, Name: OperatorName>: ThrowingStep {
    @usableFromInline
    let predicate: (Input, Input) throws -> Bool

    @usableFromInline
    var last: Input?

    @inlinable
    init(predicate: @escaping (Input, Input) throws -> Bool) {
      self.predicate = predicate
    }

    @inlinable
    static var name: String { Name.name }

    /// The downstream and the last value, as Combine's subscription for both operators shows.
    @inlinable
    static func mirrorChildren(
      downstream: Any,
      step: Self?,
      status: SubscriptionStatus
    )
      -> [Mirror.Child]
    { [("downstream", downstream), ("last", step?.last as Any)] }

    @inlinable
    static var isStateful: Bool { true }

    @inlinable
    static var trapsEventsBeforeSubscription: Bool { true }

    @inlinable
    mutating func apply(_ input: Input) throws -> Input? {
      let previous = last
      last = input
      if let previous, try predicate(previous, input) { return nil }
      return input
    }
  }

  /// `tryRemoveDuplicates`'s name.
  @usableFromInline
  enum TryRemoveDuplicatesName: OperatorName {
    @inlinable
    static var name: String { "TryRemoveDuplicates" }
  }
}
