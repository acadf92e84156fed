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
  /// - Parameter createSubject: Makes the one subject the publisher uses; called once, when the
  ///   publisher is created.
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
  /// ``connect()`` subscribes the subject to the upstream once; while connected, further calls
  /// return the same connection. Cancelling the connection cancels that upstream subscription,
  /// and a later ``connect()`` subscribes again. Subscriptions are described as `"Multicast"`.
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

    private let subject: SubjectType
    private let lock = Lock()
    private var state = MulticastState<Connection>.disconnected

    /// Creates a multicast publisher and its subject.
    ///
    /// The subject is made here, once, rather than on first use.
    ///
    /// - Parameters:
    ///   - upstream: The publisher that the subject subscribes to on ``connect()``.
    ///   - createSubject: Makes the subject that republishes the upstream.
    public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
      self.upstream = upstream
      self.createSubject = createSubject
      self.subject = createSubject()
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      subject.subscribe(Inner(link: PassThroughLink(downstream: subscriber, extra: ())))
    }

    /// Subscribes the subject to the upstream, unless it is already connected.
    ///
    /// ```swift
    /// let connection = multicast.connect()
    /// ```
    ///
    /// - Returns: The connection; cancel it to disconnect from the upstream.
    public func connect() -> any Cancellable {
      let connecting = lock.withLock { state.connect { Connection(parent: self) } }
      switch connecting {
      case .existing(let current):
        return current
      case .fresh(let current):
        current.attach(upstream.subscribe(subject))
        return current
      }
    }

    /// Forgets `connection` if it is the current one, so that the next ``connect()`` subscribes
    /// again.
    fileprivate func disconnected(_ connection: Connection) {
      let released = lock.withLock { state.disconnect(connection) }
      _ = released  // released after the lock
    }
  }
}

// Sendable: `state` is guarded by `lock`; `subject` and `upstream` are only called outside
// it, and `createSubject` runs once, in `init`.
extension Publishers.Multicast: @unchecked Sendable
where Upstream: Sendable, SubjectType: Sendable {}

extension Publishers.Multicast {
  /// One connection of the subject to the upstream.
  // Sendable: `state` is guarded by `lock`; the upstream cancellable is cancelled outside it.
  fileprivate final class Connection: @unchecked Sendable, Cancellable {
    private let lock = Lock()
    private var state = MulticastConnectionState.connecting
    private weak var parent: Publishers.Multicast<Upstream, SubjectType>?

    init(parent: Publishers.Multicast<Upstream, SubjectType>) {
      self.parent = parent
    }

    /// Keeps the upstream subscription, or cancels it if the connection was cancelled first.
    func attach(_ cancellable: AnyCancellable) {
      let stale = lock.withLock { state.attach(cancellable) }
      stale?.cancel()
    }

    func cancel() {
      guard let cancelled = lock.withLock({ state.cancel() }) else { return }
      parent?.disconnected(self)
      cancelled.upstream?.cancel()
    }
  }

  // Sendable: all mutable state is in `link`, which guards it with a lock; the subject's
  // subscription and the downstream are called outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, ChildlessReflection
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let link: PassThroughLink<Downstream, Void>

    init(link: PassThroughLink<Downstream, Void>) {
      self.link = link
    }

    var description: String { "Multicast" }

    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      delivery.downstream.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard let delivery = link.delivery() else { return .none }
      return delivery.downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let ended = link.finish() else { return }
      ended.downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      link.upstream()?.subscription.request(demand)
    }

    func cancel() {
      link.cancel()?.upstream?.cancel()
    }
  }
}

/// Which connection a `multicast` publisher has, as data: each transition runs under its lock.
enum MulticastState<Connection: AnyObject> {
  /// Not connected: the next `connect()` subscribes the subject.
  case disconnected
  /// Connected through `Connection` until it is cancelled.
  case connected(Connection)

  /// What `connect()` decided.
  enum Connecting {
    /// Already connected: return this connection.
    case existing(Connection)
    /// A new connection: subscribe the subject to the upstream, then return it.
    case fresh(Connection)
  }

  /// Returns the current connection, or one made by `make` and stored.
  mutating func connect(_ make: () -> Connection) -> Connecting {
    if case .connected(let current) = self { return .existing(current) }
    let fresh = make()
    self = .connected(fresh)
    return .fresh(fresh)
  }

  /// Forgets `connection` if it is the current one; returns it, to be released after the lock.
  mutating func disconnect(_ connection: Connection) -> Connection? {
    guard case .connected(let current) = self, current === connection else { return nil }
    self = .disconnected
    return current
  }
}

/// The state of one `multicast` connection, as data: each transition runs under its lock and
/// returns what to cancel after it.
///
/// ```
/// connecting --attach--> connected --cancel()--> cancelled
/// connecting --cancel()--> cancelled (a later attach hands its subscription back to cancel)
/// ```
enum MulticastConnectionState {
  /// `connect()` is subscribing the subject.
  case connecting
  /// The subject's subscription to the upstream.
  case connected(AnyCancellable)
  /// Cancelled: nothing is held.
  case cancelled

  /// What `cancel()` lets go of.
  struct Cancelled {
    /// The subject's subscription to cancel, once it was attached.
    let upstream: AnyCancellable?
  }

  /// Keeps the subject's subscription; returns it if the connection was cancelled first, for the
  /// caller to cancel.
  mutating func attach(_ cancellable: AnyCancellable) -> AnyCancellable? {
    guard case .connecting = self else { return cancellable }
    self = .connected(cancellable)
    return nil
  }

  /// Ends the connection; `nil` when it was already cancelled.
  mutating func cancel() -> Cancelled? {
    switch self {
    case .connecting:
      self = .cancelled
      return Cancelled(upstream: nil)
    case .connected(let upstream):
      self = .cancelled
      return Cancelled(upstream: upstream)
    case .cancelled:
      return nil
    }
  }
}
