import SignalOperators
public import StreamCore

extension Publisher {
  /// Turns a value into a publisher and publishes its values, ignoring this publisher's values
  /// until that publisher completes.
  ///
  /// ```swift
  /// let cancellable = refreshTaps
  ///   .flatMapFirst { _ in reload() }   // taps during a reload are ignored
  ///   .sink { show($0) }
  /// ```
  ///
  /// One inner publisher at a time: a value that arrives while one is active is dropped, and
  /// the next value after it completes makes the next one. Each subscription keeps its own
  /// record of whether an inner publisher is active. This publisher is asked for unlimited
  /// values (the dropped ones are not held); the inner publisher gets the subscriber's demand,
  /// as with `flatMap`. It finishes once this publisher and the active inner publisher have
  /// finished; a failure of either fails it.
  ///
  /// <!-- marbles:flat-map-first -->
  /// Marble diagram of `flatMapFirst { $0 }`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// outer   -x-y---z-----|
  /// x       -a-b|
  /// y       -c-d|
  /// z       -e-f|
  /// output  --a-b---e-f--|
  /// ```
  ///
  /// ![Marble diagram of flatMapFirst { $0 }](marble-flat-map-first)
  /// <!-- /marbles:flat-map-first -->
  ///
  /// > Thread safety: The decision to drop a value or start an inner publisher is made under a
  /// > lock, so two inner publishers are never active at once, whatever threads send.
  ///
  /// - Parameter transform: Makes the inner publisher for a value.
  /// - Returns: A publisher of the inner publishers' values.
  public func flatMapFirst<P: Publisher>(
    _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMapFirst<Self, P> where P.Failure == Failure {
    Publishers.FlatMapFirst(upstream: self, transform: transform)
  }
}

extension Publishers {
  /// A publisher that publishes the values of one inner publisher at a time, ignoring upstream
  /// values while one is active.
  ///
  /// ```swift
  /// let reloads = Publishers.FlatMapFirst(upstream: refreshTaps) { _ in reload() }
  /// ```
  ///
  /// Made by ``StreamCore/Publisher/flatMapFirst(_:)``, which describes its behaviour. Each
  /// subscription is a `filter` and a `flatMap` sharing that subscription's own "active" flag;
  /// it is described as `"FlatMap"`.
  ///
  /// > Thread safety: The upstream and the inner publishers may send from any threads.
  public struct FlatMapFirst<Upstream: Publisher, P: Publisher>: Publisher
  where P.Failure == Upstream.Failure {
    public typealias Output = P.Output
    public typealias Failure = P.Failure

    /// The publisher whose values start inner publishers.
    public let upstream: Upstream
    /// Makes the inner publisher for an upstream value.
    public let transform: (Upstream.Output) -> P

    /// Creates a publisher that maps `upstream`'s values to inner publishers, one at a time.
    ///
    /// > Thread safety: A value type; the publisher may be subscribed from any thread.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values start inner publishers.
    ///   - transform: Makes the inner publisher for an upstream value.
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> P) {
      self.upstream = upstream
      self.transform = transform
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let transform = transform
      let active = LockedState(false)
      let ended: () -> Void = { active.withLock { $0 = false } }
      upstream
        .filter { _ in
          active.withLock { isActive in
            guard !isActive else { return false }
            isActive = true
            return true
          }
        }
        .flatMap { value in
          transform(value).handleEvents(
            receiveCompletion: { _ in ended() },
            receiveCancel: ended
          )
        }
        .receive(subscriber: subscriber)
    }
  }
}
