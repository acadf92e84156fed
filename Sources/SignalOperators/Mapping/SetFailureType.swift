public import StreamCore

extension Publisher where Failure == Never {
  /// Gives a publisher that never fails the failure type a subscriber or operator expects.
  ///
  /// ```swift
  /// let values: AnyPublisher<Int, MyError> = [1, 2].publisher
  ///   .setFailureType(to: MyError.self)
  ///   .eraseToAnyPublisher()
  /// ```
  ///
  /// Values, demand and `.finished` pass through untouched; the subscriber gets the upstream's
  /// subscription.
  ///
  /// > Thread safety: A value type; adds no synchronisation of its own.
  ///
  /// - Parameter failureType: The failure type to publish.
  /// - Returns: A publisher with the new failure type.
  @inlinable
  public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E>
  {
    Publishers.SetFailureType(upstream: self)
  }
}

extension Publishers {
  /// A publisher that never fails, typed with a failure type of your choice.
  ///
  /// ```swift
  /// let typed = Publishers.SetFailureType<_, MyError>(upstream: [1, 2].publisher)
  /// ```
  ///
  /// See ``StreamCore/Publisher/setFailureType(to:)``.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher
  where Upstream.Failure == Never {
    public typealias Output = Upstream.Output

    /// The publisher whose failure type is set.
    public let upstream: Upstream

    /// Creates a publisher with `upstream`'s values and the failure type `Failure`.
    ///
    /// - Parameter upstream: The publisher whose failure type is set.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Subscribes `subscriber` to the upstream.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(subscriber: Inner(downstream: subscriber))
    }

    /// Changes the failure type again, keeping one `SetFailureType`.
    ///
    /// ```swift
    /// let typed = values.setFailureType(to: A.self).setFailureType(to: B.self)
    /// ```
    ///
    /// > Thread safety: A value type.
    ///
    /// - Parameter failure: The failure type to publish.
    /// - Returns: A publisher of the same upstream with the new failure type.
    @inlinable
    public func setFailureType<E: Error>(
      to failure: E.Type
    ) -> Publishers.SetFailureType<Upstream, E> {
      Publishers.SetFailureType(upstream: upstream)
    }
  }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publishers.SetFailureType: Sendable where Upstream: Sendable {}

extension Publishers.SetFailureType {
  /// The subscriber that retypes the completion; it hands the upstream's subscription on.
  @usableFromInline
  struct Inner<Downstream: Subscriber>: Subscriber, ChildlessReflection
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    typealias Input = Output

    @usableFromInline
    typealias Failure = Never

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
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
      downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Never>) {
      downstream.receive(completion: .finished)
    }

    @usableFromInline
    var description: String { "SetFailureType" }
  }
}
