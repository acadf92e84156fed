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
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
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

    /// Subscribes `subscriber` to the upstream through a de-duplicating subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(
        subscriber: Transforming.RemoveDuplicatesInner(downstream: subscriber, predicate: predicate)
      )
    }
  }
}

extension Transforming {
  /// The subscriber that remembers the last value; it hands the upstream's subscription on.
  ///
  /// `last` is only touched by `receive(_:)`, which the upstream calls one value at a time.
  @usableFromInline
  final class RemoveDuplicatesInner<Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible
  {
    @usableFromInline
    typealias Input = Downstream.Input

    @usableFromInline
    typealias Failure = Downstream.Failure

    @usableFromInline
    let downstream: Downstream

    @usableFromInline
    let predicate: (Input, Input) -> Bool

    @usableFromInline
    var last: Input?

    @inlinable
    init(downstream: Downstream, predicate: @escaping (Input, Input) -> Bool) {
      self.downstream = downstream
      self.predicate = predicate
    }

    /// Whether the upstream has sent its subscription (upstream calls are serial, so no lock).
    @usableFromInline
    var subscribed = false

    /// Whether the upstream has completed: a value or completion after it (an upstream that
    /// breaks the contract) is ignored, as the other operators do (INTENDED.md, I11).
    @usableFromInline
    var completed = false

    @inlinable
    func receive(subscription: any Subscription) {
      guard !subscribed else {
        subscription.cancel()  // a second subscription, as Combine
        return
      }
      subscribed = true
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      if !subscribed { trapEventBeforeSubscription("RemoveDuplicates", "a value") }
      guard !completed else { return .none }
      let previous = last
      last = input
      if let previous, predicate(previous, input) { return .max(1) }
      return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      if !subscribed { trapEventBeforeSubscription("RemoveDuplicates", "a completion") }
      guard !completed else { return }
      completed = true
      last = nil
      downstream.receive(completion: completion)
    }

    @usableFromInline
    var description: String { "RemoveDuplicates" }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
