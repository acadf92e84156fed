public import StreamCore

extension Publisher {
  /// Turns each value into a publisher and publishes the values of all of them, as they come.
  ///
  /// ```swift
  /// userIDs.publisher
  ///   .flatMap(maxPublishers: .max(4)) { id in fetchProfile(id) }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// The operator requests `maxPublishers` values from this publisher, and one more each time a
  /// child publisher finishes. It asks each child for one value at a time (or for unlimited
  /// values while the downstream's demand is unlimited) and holds a value a child sent while
  /// the downstream had no demand until the downstream asks for it. It finishes once this
  /// publisher and every child have finished; the first failure, of this publisher or a child,
  /// cancels everything else and goes downstream.
  ///
  /// <!-- marbles:flat-map -->
  /// Marble diagram of `flatMap { $0 }`, made by running it (a character is a tick of virtual time;
  /// `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// outer   -x--y-----|
  /// x       -a--b|
  /// y       -c---d|
  /// output  --a--(bc)d|
  /// ```
  ///
  /// ![Marble diagram of flatMap { $0 }](marble-flat-map)
  /// <!-- /marbles:flat-map -->
  ///
  /// <!-- marbles:flat-map-max-1 -->
  /// Marble diagram of `flatMap(maxPublishers: .max(1)) { $0 }`, made by running it (a character is
  /// a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// outer   (xy|)
  /// x       -a--b|
  /// y       -c-d|
  /// output  -a--b-c-d|
  ///         outer = [x, y].publisher: it sends y only when flatMap asks for it
  /// ```
  ///
  /// ![Marble diagram of flatMap(maxPublishers: .max(1)) { $0 }](marble-flat-map-max-1)
  /// <!-- /marbles:flat-map-max-1 -->
  ///
  /// > Thread safety: Children may send from any threads at once; none of them waits for
  /// > another. Values go downstream one at a time, either on the thread that sent them or on
  /// > the thread already delivering. `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameters:
  ///   - maxPublishers: The most children subscribed at once; unlimited by default.
  ///   - transform: Makes the child publisher for a value.
  /// - Returns: A publisher of the children's values.
  @inlinable
  public func flatMap<T, P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited,
    _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<P, Self> where T == P.Output, P.Failure == Failure {
    Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
  }
}

extension Publishers {
  /// A publisher that turns each upstream value into a publisher and publishes the values of
  /// all of them.
  ///
  /// ```swift
  /// let profiles = Publishers.FlatMap(upstream: ids, maxPublishers: .max(4)) { fetchProfile($0) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/flatMap(maxPublishers:_:)-6p3fs``. The subscription is described as
  /// `"FlatMap"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
  where NewPublisher.Failure == Upstream.Failure {
    public typealias Output = NewPublisher.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are turned into publishers.
    public let upstream: Upstream

    /// The most children subscribed at once.
    public let maxPublishers: Subscribers.Demand

    /// Makes the child publisher for an upstream value.
    public let transform: (Upstream.Output) -> NewPublisher

    /// Creates a publisher that flattens the publishers `transform` makes.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are turned into publishers.
    ///   - maxPublishers: The most children subscribed at once.
    ///   - transform: Makes the child publisher for an upstream value.
    @inlinable
    public init(
      upstream: Upstream,
      maxPublishers: Subscribers.Demand,
      transform: @escaping (Upstream.Output) -> NewPublisher
    ) {
      self.upstream = upstream
      self.maxPublishers = maxPublishers
      self.transform = transform
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber, maxPublishers: maxPublishers, transform: transform)
      subscriber.receive(subscription: inner)
      upstream.subscribe(inner)
    }
  }
}
