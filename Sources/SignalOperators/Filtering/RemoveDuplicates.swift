public import StreamCore

extension Publisher where Output: Equatable {
  /// Republishes a value only if it differs from the value before it.
  ///
  /// ```swift
  /// [1, 1, 2, 2, 1].publisher
  ///   .removeDuplicates()
  ///   .sink { print($0) }  // 1, 2, 1
  /// ```
  ///
  /// Each value is compared with the upstream value just before it. For each value left out,
  /// the operator asks the upstream for one more.
  ///
  /// > Thread safety: Comparisons run on the thread the upstream sends on, one value at a time.
  ///
  /// - Returns: A publisher without consecutive duplicates.
  @inlinable
  public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, predicate: ==)
  }
}

extension Publisher {
  /// Republishes a value only if a predicate says it isn't a duplicate of the value before it.
  ///
  /// ```swift
  /// ["a", "A", "b"].publisher
  ///   .removeDuplicates { $0.lowercased() == $1.lowercased() }
  ///   .sink { print($0) }  // a, b
  /// ```
  ///
  /// Each value is compared with the upstream value just before it, published or not. For each
  /// value left out, the operator asks the upstream for one more.
  ///
  /// > Thread safety: `predicate` runs on the thread the upstream sends on, one value at a time.
  ///
  /// - Parameter predicate: Returns `true` if the second value (the new one) duplicates the
  ///   first (the previous one).
  /// - Returns: A publisher without consecutive duplicates.
  @inlinable
  public func removeDuplicates(
    by predicate: @escaping (Output, Output) -> Bool
  ) -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that leaves out values that duplicate the value before them.
  ///
  /// ```swift
  /// let changes = Publishers.RemoveDuplicates(upstream: readings) { $0 == $1 }
  /// ```
  ///
  /// See ``StreamCore/Publisher/removeDuplicates(by:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose duplicates are removed.
    public let upstream: Upstream

    /// Returns `true` if the second value duplicates the first.
    public let predicate: (Output, Output) -> Bool

    /// Creates a publisher that leaves out the duplicates of `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose duplicates are removed.
    ///   - predicate: Returns `true` if the second value duplicates the first.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Output, Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Subscribes `subscriber` to the upstream through a `"RemoveDuplicates"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Step = Transforming.RemoveDuplicatesStep<Output, Transforming.RemoveDuplicatesName>
      upstream.receive(
        subscriber: ThrowingStepInner<Step, Failure, S>(
          nonThrowing: Step(predicate: predicate),
          downstream: subscriber
        )
      )
    }
  }
}

extension Transforming {
  /// `removeDuplicates`'s name.
  @usableFromInline
  enum RemoveDuplicatesName: OperatorName {
    @inlinable
    static var name: String { "RemoveDuplicates" }
  }
}
