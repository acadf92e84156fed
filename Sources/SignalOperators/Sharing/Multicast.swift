public import StreamCore

extension Publisher {
  /// Shares the upstream among several subscribers through a subject that `createSubject` makes.
  ///
  /// ```swift
  /// let multicast = values.multicast { PassthroughSubject<Int, Never>() }
  /// let first = multicast.sink { print("A", $0) }
  /// let second = multicast.sink { print("B", $0) }
  /// let connection = multicast.connect()
  /// ```
  ///
  /// Subscribers subscribe to the subject; nothing flows until ``StreamCore/Publishers/Multicast/connect()``
  /// subscribes the subject to the upstream.
  ///
  /// > Thread safety: Subscribing, connecting and cancelling are safe from any thread.
  ///
  /// - Parameter createSubject: Makes the one subject the publisher uses; called once, on first
  ///   use (the first subscriber or the first `connect()`), as in Combine.
  /// - Returns: A connectable publisher that multicasts the upstream through the subject.
  public func multicast<S: Subject>(
    _ createSubject: @escaping () -> S
  ) -> Publishers.Multicast<Self, S> where S.Output == Output, S.Failure == Failure {
    Publishers.Multicast(upstream: self, createSubject: createSubject)
  }

  /// Shares the upstream among several subscribers through `subject`.
  ///
  /// ```swift
  /// let multicast = values.multicast(subject: PassthroughSubject<Int, Never>())
  /// ```
  ///
  /// > Thread safety: Subscribing, connecting and cancelling are safe from any thread.
  ///
  /// - Parameter subject: The subject that republishes the upstream to every subscriber.
  /// - Returns: A connectable publisher that multicasts the upstream through `subject`.
  public func multicast<S: Subject>(
    subject: S
  ) -> Publishers.Multicast<Self, S> where S.Output == Output, S.Failure == Failure {
    Publishers.Multicast(upstream: self, createSubject: { subject })
  }
}

extension Publishers {
  /// A connectable publisher that shares its upstream among subscribers through a subject.
  ///
  /// ```swift
  /// let multicast = Publishers.Multicast(upstream: values) { PassthroughSubject<Int, Never>() }
  /// let connection = multicast.connect()
  /// connection.cancel()  // disconnects from the upstream
  /// ```
  ///
  /// Each ``connect()`` subscribes the subject to the upstream, as Combine's does: connecting
  /// twice without cancelling makes two upstream subscriptions feeding the one subject.
  /// Cancelling a connection (or releasing it) cancels its upstream subscription.
  /// Subscriptions are described as `"Multicast"`.
  ///
  /// > Thread safety: Subscribing, ``connect()`` and cancelling the connection are safe from any
  /// > thread, also at the same time.
  public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher
  where Upstream.Output == SubjectType.Output, Upstream.Failure == SubjectType.Failure {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher that the subject subscribes to on ``connect()``.
    public let upstream: Upstream

    /// The closure that made the subject.
    public let createSubject: () -> SubjectType

    @usableFromInline
    let lock = Lock()
    /// The subject once made; guarded by `lock`.
    @usableFromInline
    var madeSubject: SubjectType?

    /// Creates a multicast publisher; its subject is made on first use.
    ///
    /// - Parameters:
    ///   - upstream: The publisher that the subject subscribes to on ``connect()``.
    ///   - createSubject: Makes the subject that republishes the upstream, once, when the first
    ///     subscriber arrives or at the first ``connect()``, as Combine's.
    public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
      self.upstream = upstream
      self.createSubject = createSubject
    }

    /// The subject, made by `createSubject` on first use, as Combine's (OpenCombine's
    /// `Multicast`, whose suite runs against Combine too, makes it lazily).
    @usableFromInline
    var subject: SubjectType {
      if let made = lock.withLock({ madeSubject }) { return made }
      // Made outside the lock: `createSubject` is the caller's code. Two threads using the
      // publisher for the first time at once may each make one; the first installed is kept,
      // and the other is released after the lock.
      let fresh = createSubject()
      let (kept, spare) = lock.withLock { () -> (SubjectType, SubjectType?) in
        if let made = madeSubject { return (made, fresh) }
        madeSubject = fresh
        return (fresh, nil)
      }
      _ = spare
      return kept
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      // Inlinable, with `Inner.receive(_:)`: the subject subscribes a subscription specialised
      // in the client, so a subject that keeps its subscriber's type (`ReplaySubject`) delivers
      // each value without generic code.
      // `receive(subscriber:)`, not `subscribe(_:)`: a chain of `subscribe` calls stops the
      // optimiser specialising.
      subject.receive(subscriber: Inner(link: PassThroughLink(downstream: subscriber, extra: ())))
    }

    /// Subscribes the subject to the upstream.
    ///
    /// ```swift
    /// let connection = multicast.connect()
    /// ```
    ///
    /// Every call subscribes again, also while an earlier connection is still active.
    ///
    /// - Returns: The connection; cancel it (or release it) to cancel this upstream subscription.
    @inlinable
    public func connect() -> any Cancellable {
      upstream.subscribe(subject)
    }
  }
}

// Sendable: the one mutable field, the subject once made, is guarded by `lock`; `createSubject`
// runs outside it.
extension Publishers.Multicast: @unchecked Sendable
where Upstream: Sendable, SubjectType: Sendable {}

extension Publishers.Multicast {
  // Sendable: all mutable state is in `link`, which guards it with a lock; the subject's
  // subscription and the downstream are called outside it.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, ChildlessReflection
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    typealias Input = Output

    @usableFromInline
    let link: PassThroughLink<Downstream, Void>

    @usableFromInline
    init(link: PassThroughLink<Downstream, Void>) {
      self.link = link
    }

    @usableFromInline
    var description: String { "Multicast" }

    @usableFromInline
    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      delivery.downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
      guard let delivery = link.delivery() else { return .none }
      // As Combine's: the subscriber's extra demand is requested from the subject's
      // subscription, not returned (OpenCombine's `MulticastTests.testInnerSubscriber`).
      let more = delivery.downstream.receive(input)
      if more > .none { requestFromSubject(more) }
      return .none
    }

    @usableFromInline
    func requestFromSubject(_ more: Subscribers.Demand) {
      link.upstream()?.subscription.request(more)
    }

    @usableFromInline
    func receive(completion: Subscribers.Completion<Failure>) {
      guard let ended = link.finish() else { return }
      ended.downstream.receive(completion: completion)
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
      link.upstream()?.subscription.request(demand)
    }

    @usableFromInline
    func cancel() {
      link.cancel()?.upstream?.cancel()
    }
  }
}
