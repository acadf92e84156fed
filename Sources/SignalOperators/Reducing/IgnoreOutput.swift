public import StreamCore

extension Publisher {
  /// Ignores every value and publishes only the upstream's completion.
  ///
  /// ```swift
  /// upload
  ///   .ignoreOutput()
  ///   .sink(receiveCompletion: { print("upload ended: \($0)") }, receiveValue: { _ in })
  /// ```
  ///
  /// The operator requests `.unlimited` from the upstream as soon as it is subscribed; the
  /// subscriber gets the upstream's subscription, so its `cancel()` cancels the upstream.
  ///
  /// > Thread safety: The completion arrives on the thread the upstream completes on.
  ///
  /// - Returns: A publisher that never publishes a value.
  @inlinable
  public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
    Publishers.IgnoreOutput(upstream: self)
  }
}

extension Publishers {
  /// A publisher that ignores every upstream value and publishes only the completion.
  ///
  /// ```swift
  /// let done = Publishers.IgnoreOutput(upstream: upload)
  /// ```
  ///
  /// See ``StreamCore/Publisher/ignoreOutput()``.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct IgnoreOutput<Upstream: Publisher>: Publisher {
    public typealias Output = Never
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are ignored.
    public let upstream: Upstream

    /// Creates a publisher that ignores the values of `upstream`.
    ///
    /// - Parameter upstream: The publisher whose values are ignored.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Subscribes `subscriber` to the upstream and requests all its values.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(subscriber: Inner(downstream: subscriber))
    }
  }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}

extension Publishers.IgnoreOutput: Sendable where Upstream: Sendable {}

extension Publishers.IgnoreOutput {
  /// The subscriber that drops values; it hands the upstream's subscription on as is.
  @usableFromInline
  struct Inner<Downstream: Subscriber>: Subscriber, ChildlessReflection
  where Downstream.Input == Never, Downstream.Failure == Upstream.Failure {
    @usableFromInline
    typealias Input = Upstream.Output

    @usableFromInline
    typealias Failure = Upstream.Failure

    @usableFromInline
    let downstream: Downstream

    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream) {
      self.downstream = downstream
    }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
      subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      downstream.receive(completion: completion)
    }

    @usableFromInline
    var description: String { "IgnoreOutput" }
  }
}
