public import StreamCore

extension Publisher {
  /// Publishes a tuple of the latest values of this publisher and `other` whenever either sends,
  /// once both have sent at least one value.
  ///
  /// ```swift
  /// let names = PassthroughSubject<String, Never>()
  /// let ages = PassthroughSubject<Int, Never>()
  /// let cancellable = names.combineLatest(ages).sink { print($0) }
  /// names.send("Ada")   // nothing yet
  /// ages.send(36)       // prints ("Ada", 36)
  /// names.send("Alan")  // prints ("Alan", 36)
  /// ```
  ///
  /// Each request of the subscriber goes to both upstreams, and only the requested tuples go
  /// down: a value that arrives without demand replaces the stored one, and the next request
  /// sends the latest values. The demand returned for a tuple goes back to the upstream that
  /// sent the value and to the other one. Finishes once both upstreams have finished (never if
  /// one finished without a value while the other goes on); fails at the first failure and
  /// cancels the other upstream.
  ///
  /// <!-- marbles:combine-latest -->
  /// Marble diagram of `combineLatest(_:)`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// left    -a---b---|
  /// right   ---1---2-|
  /// output  ---x-y-z-|
  ///         x = (a, 1), y = (b, 1), z = (b, 2)
  /// ```
  ///
  /// ![Marble diagram of combineLatest(_:)](marble-combine-latest)
  /// <!-- /marbles:combine-latest -->
  ///
  /// > Thread safety: The upstreams may send from any threads at once; calls to the subscriber
  /// > never overlap, and a sender never waits for another's delivery (it queues its tuple).
  ///
  /// - Parameter other: Another publisher to combine with this one.
  /// - Returns: A publisher of tuples of the latest values.
  @inlinable
  public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
  where Failure == P.Failure {
    Publishers.CombineLatest(self, other)
  }

  /// Publishes a tuple of the latest values of this publisher and two others whenever one
  /// sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = red.combineLatest(green, blue).sink { r, g, b in paint(r, g, b) }
  /// ```
  ///
  /// Behaves as ``combineLatest(_:)`` with three upstreams.
  ///
  /// <!-- marbles:combine-latest-3 -->
  /// Marble diagram of `combineLatest(_:_:)`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = (a, 1, A), y = (b, 1, A), z = (b, 1, B), w = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of combineLatest(_:_:)](marble-combine-latest-3)
  /// <!-- /marbles:combine-latest-3 -->
  ///
  /// > Thread safety: As for ``combineLatest(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to combine.
  ///   - publisher2: A third publisher to combine.
  /// - Returns: A publisher of tuples of the latest values.
  @inlinable
  public func combineLatest<P: Publisher, Q: Publisher>(
    _ publisher1: P,
    _ publisher2: Q
  ) -> Publishers.CombineLatest3<Self, P, Q>
  where Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.CombineLatest3(self, publisher1, publisher2)
  }

  /// Publishes a tuple of the latest values of this publisher and three others whenever one
  /// sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = x.combineLatest(y, z, w).sink { print($0) }
  /// ```
  ///
  /// Behaves as ``combineLatest(_:)`` with four upstreams.
  ///
  /// <!-- marbles:combine-latest-3 -->
  /// Marble diagram of `combineLatest(_:_:)`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = (a, 1, A), y = (b, 1, A), z = (b, 1, B), w = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of combineLatest(_:_:)](marble-combine-latest-3)
  /// <!-- /marbles:combine-latest-3 -->
  ///
  /// > Thread safety: As for ``combineLatest(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to combine.
  ///   - publisher2: A third publisher to combine.
  ///   - publisher3: A fourth publisher to combine.
  /// - Returns: A publisher of tuples of the latest values.
  @inlinable
  public func combineLatest<P: Publisher, Q: Publisher, R: Publisher>(
    _ publisher1: P,
    _ publisher2: Q,
    _ publisher3: R
  ) -> Publishers.CombineLatest4<Self, P, Q, R>
  where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
    Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
  }
}

extension Publishers {
  /// A publisher of tuples of the latest values of two upstreams.
  ///
  /// ```swift
  /// let both = Publishers.CombineLatest(names, ages)
  /// ```
  ///
  /// See ``StreamCore/Publisher/combineLatest(_:)`` for its behaviour. The subscription is
  /// described as `"CombineLatest"`.
  ///
  /// > Thread safety: A value type; subscribe from any thread. The subscription's
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct CombineLatest<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
    public typealias Output = (A.Output, B.Output)
    public typealias Failure = A.Failure

    /// The first upstream.
    public let a: A

    /// The second upstream.
    public let b: B

    /// Creates a publisher of the latest values of `a` and `b`.
    ///
    /// - Parameters:
    ///   - a: The first upstream.
    ///   - b: The second upstream.
    @inlinable
    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    /// Subscribes `subscriber`, then each upstream in order.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Storage = CombineLatestValues2<A.Output, B.Output>
      typealias Core = CombineLatestInner<Storage, S>
      let core = Core(downstream: subscriber)
      subscriber.receive(subscription: core)
      guard core.isActive else { return }
      a.subscribe(CombiningSide<CombiningSlot0<Storage>, Core>(core: core))
      guard core.isActive else { return }
      b.subscribe(CombiningSide<CombiningSlot1<Storage>, Core>(core: core))
    }
  }

  /// A publisher of tuples of the latest values of three upstreams.
  ///
  /// ```swift
  /// let colour = Publishers.CombineLatest3(red, green, blue)
  /// ```
  ///
  /// See ``StreamCore/Publisher/combineLatest(_:_:)->Publishers.CombineLatest3<Self,P,Q>`` for its behaviour. The subscription is
  /// described as `"CombineLatest"`.
  ///
  /// > Thread safety: A value type; subscribe from any thread. The subscription's
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
  where A.Failure == B.Failure, B.Failure == C.Failure {
    public typealias Output = (A.Output, B.Output, C.Output)
    public typealias Failure = A.Failure

    /// The first upstream.
    public let a: A

    /// The second upstream.
    public let b: B

    /// The third upstream.
    public let c: C

    /// Creates a publisher of the latest values of `a`, `b` and `c`.
    ///
    /// - Parameters:
    ///   - a: The first upstream.
    ///   - b: The second upstream.
    ///   - c: The third upstream.
    @inlinable
    public init(_ a: A, _ b: B, _ c: C) {
      self.a = a
      self.b = b
      self.c = c
    }

    /// Subscribes `subscriber`, then each upstream in order.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Storage = CombineLatestValues3<A.Output, B.Output, C.Output>
      typealias Core = CombineLatestInner<Storage, S>
      let core = Core(downstream: subscriber)
      subscriber.receive(subscription: core)
      guard core.isActive else { return }
      a.subscribe(CombiningSide<CombiningSlot0<Storage>, Core>(core: core))
      guard core.isActive else { return }
      b.subscribe(CombiningSide<CombiningSlot1<Storage>, Core>(core: core))
      guard core.isActive else { return }
      c.subscribe(CombiningSide<CombiningSlot2<Storage>, Core>(core: core))
    }
  }

  /// A publisher of tuples of the latest values of four upstreams.
  ///
  /// ```swift
  /// let all = Publishers.CombineLatest4(x, y, z, w)
  /// ```
  ///
  /// See ``StreamCore/Publisher/combineLatest(_:_:_:)->Publishers.CombineLatest4<Self,P,Q,R>`` for its behaviour. The subscription is
  /// described as `"CombineLatest"`.
  ///
  /// > Thread safety: A value type; subscribe from any thread. The subscription's
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct CombineLatest4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
  where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure {
    public typealias Output = (A.Output, B.Output, C.Output, D.Output)
    public typealias Failure = A.Failure

    /// The first upstream.
    public let a: A

    /// The second upstream.
    public let b: B

    /// The third upstream.
    public let c: C

    /// The fourth upstream.
    public let d: D

    /// Creates a publisher of the latest values of `a`, `b`, `c` and `d`.
    ///
    /// - Parameters:
    ///   - a: The first upstream.
    ///   - b: The second upstream.
    ///   - c: The third upstream.
    ///   - d: The fourth upstream.
    @inlinable
    public init(_ a: A, _ b: B, _ c: C, _ d: D) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
    }

    /// Subscribes `subscriber`, then each upstream in order.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Storage = CombineLatestValues4<A.Output, B.Output, C.Output, D.Output>
      typealias Core = CombineLatestInner<Storage, S>
      let core = Core(downstream: subscriber)
      subscriber.receive(subscription: core)
      guard core.isActive else { return }
      a.subscribe(CombiningSide<CombiningSlot0<Storage>, Core>(core: core))
      guard core.isActive else { return }
      b.subscribe(CombiningSide<CombiningSlot1<Storage>, Core>(core: core))
      guard core.isActive else { return }
      c.subscribe(CombiningSide<CombiningSlot2<Storage>, Core>(core: core))
      guard core.isActive else { return }
      d.subscribe(CombiningSide<CombiningSlot3<Storage>, Core>(core: core))
    }
  }
}

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {}

extension Publishers.CombineLatest: Sendable where A: Sendable, B: Sendable {}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {}

extension Publishers.CombineLatest3: Sendable where A: Sendable, B: Sendable, C: Sendable {}

extension Publishers.CombineLatest4: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}

extension Publishers.CombineLatest4: Sendable
where A: Sendable, B: Sendable, C: Sendable, D: Sendable {}
