public import StreamCore

extension Publisher {
  /// Pairs the values of this publisher and `other` in order: the first with the first, the
  /// second with the second, and so on.
  ///
  /// ```swift
  /// let questions = PassthroughSubject<String, Never>()
  /// let answers = PassthroughSubject<Int, Never>()
  /// let cancellable = questions.zip(answers).sink { print($0) }
  /// questions.send("6 × 7?")
  /// questions.send("2 + 2?")  // nothing yet
  /// answers.send(42)          // prints ("6 × 7?", 42)
  /// answers.send(4)           // prints ("2 + 2?", 4)
  /// ```
  ///
  /// Values wait in a queue per upstream until each upstream has one and the subscriber has
  /// demand. Downstream demand is forwarded to both upstreams. Finishes once an upstream has
  /// finished and its queue is empty, cancelling the other; fails at the first failure,
  /// dropping the queues and cancelling the other upstream.
  ///
  /// <!-- marbles:zip -->
  /// Marble diagram of `zip(_:)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// left    -a--b--c|
  /// right   ---1---2|
  /// output  ---x---y|
  ///         x = (a, 1), y = (b, 2)
  /// ```
  ///
  /// ![Marble diagram of zip(_:)](marble-zip)
  /// <!-- /marbles:zip -->
  ///
  /// > Thread safety: The upstreams may send from any threads at once; calls to the subscriber
  /// > never overlap, and a sender never waits for another's delivery.
  ///
  /// - Parameter other: Another publisher to zip with this one.
  /// - Returns: A publisher of tuples of values paired in order.
  @inlinable
  public func zip<P: Publisher>(_ other: P) -> Publishers.Zip<Self, P>
  where Failure == P.Failure {
    Publishers.Zip(self, other)
  }

  /// Pairs the values of this publisher and two others in order.
  ///
  /// ```swift
  /// let cancellable = red.zip(green, blue).sink { r, g, b in paint(r, g, b) }
  /// ```
  ///
  /// Behaves as ``zip(_:)`` with three upstreams.
  ///
  /// <!-- marbles:zip-3 -->
  /// Marble diagram of `zip(_:_:)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = (a, 1, A), y = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of zip(_:_:)](marble-zip-3)
  /// <!-- /marbles:zip-3 -->
  ///
  /// > Thread safety: As for ``zip(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to zip.
  ///   - publisher2: A third publisher to zip.
  /// - Returns: A publisher of tuples of values paired in order.
  @inlinable
  public func zip<P: Publisher, Q: Publisher>(
    _ publisher1: P,
    _ publisher2: Q
  ) -> Publishers.Zip3<Self, P, Q>
  where Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.Zip3(self, publisher1, publisher2)
  }

  /// Pairs the values of this publisher and three others in order.
  ///
  /// ```swift
  /// let cancellable = x.zip(y, z, w).sink { print($0) }
  /// ```
  ///
  /// Behaves as ``zip(_:)`` with four upstreams.
  ///
  /// <!-- marbles:zip-3 -->
  /// Marble diagram of `zip(_:_:)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = (a, 1, A), y = (b, 2, B)
  /// ```
  ///
  /// ![Marble diagram of zip(_:_:)](marble-zip-3)
  /// <!-- /marbles:zip-3 -->
  ///
  /// > Thread safety: As for ``zip(_:)``.
  ///
  /// - Parameters:
  ///   - publisher1: A second publisher to zip.
  ///   - publisher2: A third publisher to zip.
  ///   - publisher3: A fourth publisher to zip.
  /// - Returns: A publisher of tuples of values paired in order.
  @inlinable
  public func zip<P: Publisher, Q: Publisher, R: Publisher>(
    _ publisher1: P,
    _ publisher2: Q,
    _ publisher3: R
  ) -> Publishers.Zip4<Self, P, Q, R>
  where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
    Publishers.Zip4(self, publisher1, publisher2, publisher3)
  }
}

extension Publishers {
  /// A publisher of tuples pairing the values of two upstreams in order.
  ///
  /// ```swift
  /// let pairs = Publishers.Zip(questions, answers)
  /// ```
  ///
  /// See ``StreamCore/Publisher/zip(_:)`` for its behaviour. The subscription is
  /// described as `"Zip"`.
  ///
  /// > Thread safety: A value type; subscribe from any thread. The subscription's
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct Zip<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
    public typealias Output = (A.Output, B.Output)
    public typealias Failure = A.Failure

    /// The first upstream.
    public let a: A

    /// The second upstream.
    public let b: B

    /// Creates a publisher pairing the values of `a` and `b`.
    ///
    /// - Parameters:
    ///   - a: The first upstream.
    ///   - b: The second upstream.
    @inlinable
    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    /// Subscribes each upstream in order, then hands `subscriber` its subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Storage = ZipQueues2<A.Output, B.Output>
      typealias Core = ZipInner<Storage, S>
      let core = Core(downstream: subscriber)
      // As Combine: the upstreams first, then the subscriber (see `ZipInner.start()`).
      a.subscribe(CombiningSide<CombiningSlot0<Storage>, Core>(core: core))
      if core.isActive { b.subscribe(CombiningSide<CombiningSlot1<Storage>, Core>(core: core)) }
      core.start()
    }
  }

  /// A publisher of tuples pairing the values of three upstreams in order.
  ///
  /// ```swift
  /// let pixels = Publishers.Zip3(red, green, blue)
  /// ```
  ///
  /// See ``StreamCore/Publisher/zip(_:_:)->Publishers.Zip3<Self,P,Q>`` for its behaviour. The subscription is
  /// described as `"Zip"`.
  ///
  /// > Thread safety: A value type; subscribe from any thread. The subscription's
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct Zip3<A: Publisher, B: Publisher, C: Publisher>: Publisher
  where A.Failure == B.Failure, B.Failure == C.Failure {
    public typealias Output = (A.Output, B.Output, C.Output)
    public typealias Failure = A.Failure

    /// The first upstream.
    public let a: A

    /// The second upstream.
    public let b: B

    /// The third upstream.
    public let c: C

    /// Creates a publisher pairing the values of `a`, `b` and `c`.
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

    /// Subscribes each upstream in order, then hands `subscriber` its subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Storage = ZipQueues3<A.Output, B.Output, C.Output>
      typealias Core = ZipInner<Storage, S>
      let core = Core(downstream: subscriber)
      // As Combine: the upstreams first, then the subscriber (see `ZipInner.start()`).
      a.subscribe(CombiningSide<CombiningSlot0<Storage>, Core>(core: core))
      if core.isActive { b.subscribe(CombiningSide<CombiningSlot1<Storage>, Core>(core: core)) }
      if core.isActive { c.subscribe(CombiningSide<CombiningSlot2<Storage>, Core>(core: core)) }
      core.start()
    }
  }

  /// A publisher of tuples pairing the values of four upstreams in order.
  ///
  /// ```swift
  /// let all = Publishers.Zip4(x, y, z, w)
  /// ```
  ///
  /// See ``StreamCore/Publisher/zip(_:_:_:)->Publishers.Zip4<Self,P,Q,R>`` for its behaviour. The subscription is
  /// described as `"Zip"`.
  ///
  /// > Thread safety: A value type; subscribe from any thread. The subscription's
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
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

    /// Creates a publisher pairing the values of `a`, `b`, `c` and `d`.
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

    /// Subscribes each upstream in order, then hands `subscriber` its subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      typealias Storage = ZipQueues4<A.Output, B.Output, C.Output, D.Output>
      typealias Core = ZipInner<Storage, S>
      let core = Core(downstream: subscriber)
      // As Combine: the upstreams first, then the subscriber (see `ZipInner.start()`).
      a.subscribe(CombiningSide<CombiningSlot0<Storage>, Core>(core: core))
      if core.isActive { b.subscribe(CombiningSide<CombiningSlot1<Storage>, Core>(core: core)) }
      if core.isActive { c.subscribe(CombiningSide<CombiningSlot2<Storage>, Core>(core: core)) }
      if core.isActive { d.subscribe(CombiningSide<CombiningSlot3<Storage>, Core>(core: core)) }
      core.start()
    }
  }
}

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {}

extension Publishers.Zip: Sendable where A: Sendable, B: Sendable {}

extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {}

extension Publishers.Zip3: Sendable where A: Sendable, B: Sendable, C: Sendable {}

extension Publishers.Zip4: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}

extension Publishers.Zip4: Sendable
where A: Sendable, B: Sendable, C: Sendable, D: Sendable {}
