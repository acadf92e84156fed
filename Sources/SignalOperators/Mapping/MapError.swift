public import StreamCore

extension Publisher {
  /// Converts an upstream failure into a different error.
  ///
  /// ```swift
  /// download
  ///   .mapError { AppError.network($0) }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  ///
  /// Values and demand pass through untouched; the subscriber gets the upstream's subscription.
  ///
  /// > Thread safety: `transform` runs on the thread the upstream fails on.
  ///
  /// - Parameter transform: Turns the upstream error into the error to publish.
  /// - Returns: A publisher that fails with the converted error.
  @inlinable
  public func mapError<E: Error>(
    _ transform: @escaping (Failure) -> E
  ) -> Publishers.MapError<Self, E> {
    Publishers.MapError(upstream: self, transform)
  }
}

extension Publishers {
  /// A publisher that converts its upstream's failure into a different error.
  ///
  /// ```swift
  /// let typed = Publishers.MapError(upstream: download) { AppError.network($0) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/mapError(_:)``.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
    public typealias Output = Upstream.Output

    /// The publisher whose failure is converted.
    public let upstream: Upstream

    /// Converts the upstream error.
    public let transform: (Upstream.Failure) -> Failure

    /// Creates a publisher that converts the failure of `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose failure is converted.
    ///   - transform: Turns the upstream error into the error to publish.
    @inlinable
    public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Creates a publisher that converts the failure of `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose failure is converted.
    ///   - map: Turns the upstream error into the error to publish.
    @inlinable
    public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
      self.init(upstream: upstream, transform: map)
    }

    /// Subscribes `subscriber` to the upstream through an error-converting subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
    }
  }
}

extension Publishers.MapError {
  /// The subscriber that converts the failure; it hands the upstream's subscription on as is.
  @usableFromInline
  struct Inner<Downstream: Subscriber>: Subscriber, ChildlessReflection
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    typealias Input = Output

    @usableFromInline
    typealias Failure = Upstream.Failure

    @usableFromInline
    let downstream: Downstream

    @usableFromInline
    let transform: (Upstream.Failure) -> Downstream.Failure

    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    @inlinable
    init(
      downstream: Downstream,
      transform: @escaping (Upstream.Failure) -> Downstream.Failure
    ) {
      self.downstream = downstream
      self.transform = transform
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
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      switch completion {
      case .finished:
        downstream.receive(completion: .finished)
      case .failure(let error):
        downstream.receive(completion: .failure(transform(error)))
      }
    }

    @usableFromInline
    var description: String { "MapError" }
  }
}
