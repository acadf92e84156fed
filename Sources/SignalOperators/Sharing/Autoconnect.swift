public import StreamCore

extension ConnectablePublisher {
  /// Connects to the upstream when the first subscriber arrives, and disconnects when the last
  /// one cancels.
  ///
  /// ```swift
  /// let ticks = values.makeConnectable().autoconnect()
  /// let cancellable = ticks.sink { print($0) }  // connects
  /// cancellable.cancel()  // disconnects
  /// ```
  ///
  /// Subscribers that complete still count; only cancelling releases one (also after its
  /// completion, as in Combine). A subscriber that arrives after the last one cancelled connects
  /// again, also after the upstream ended.
  ///
  /// > Thread safety: Subscribing and cancelling are safe from any thread, also at the same time;
  /// > the upstream is connected at most once at a time.
  ///
  /// - Returns: A publisher that connects and disconnects the upstream by itself.
  public func autoconnect() -> Publishers.Autoconnect<Self> {
    Publishers.Autoconnect(upstream: self)
  }
}

extension Publishers {
  /// A publisher that connects its connectable upstream on the first subscriber and disconnects
  /// it when the last subscriber cancels.
  ///
  /// ```swift
  /// let auto = Publishers.Autoconnect(upstream: values.makeConnectable())
  /// ```
  ///
  /// See ``StreamCore/ConnectablePublisher/autoconnect()``.
  ///
  /// > Thread safety: Subscribing and cancelling are safe from any thread.
  public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The connectable publisher to connect and disconnect.
    public final let upstream: Upstream

    @usableFromInline
    let lock = Lock()
    @usableFromInline
    var state = AutoconnectState.disconnected

    /// Creates a publisher that connects `upstream` on demand.
    ///
    /// - Parameter upstream: The connectable publisher to connect and disconnect.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      // Inlinable, with `Inner.receive(_:)`: the upstream is subscribed with a subscription
      // specialised in the client (see `multicast`).
      let step = lock.withLock { state.subscribe() }
      upstream.receive(subscriber: Inner(parent: self, downstream: subscriber))
      if let step { settle(from: step) }
    }

    /// One subscriber cancelled; disconnects if it was the last.
    @usableFromInline
    func release() {
      let step = lock.withLock { state.release() }
      if let step { settle(from: step) }
    }

    /// Connects or disconnects, then repeats while the subscriber count asks for the opposite.
    ///
    /// The thread that moved the state to connecting or disconnecting runs this; the phase is
    /// its claim, so `SerialDrain.run` drives the loop without a `SerialDrain` of its own.
    @inlinable
    func settle(from first: AutoconnectState.Step) {
      var settled = perform(first)
      SerialDrain.run(lock) {
        state.settle(settled)
      } perform: { step in
        settled = perform(step)
        return true
      }
    }

    /// Calls the upstream for `step`, outside the lock.
    @inlinable
    func perform(_ step: AutoconnectState.Step) -> AutoconnectState.Settled {
      switch step {
      case .connect:
        return .connected(upstream.connect())
      case .disconnect(let connection):
        connection.cancel()
        return .disconnected
      }
    }
  }
}

/// The state of an `autoconnect()` publisher, as data: each transition runs under its lock and
/// returns what to do after it.
///
/// ```
/// disconnected --first subscriber--> connecting
/// connecting --connect() returned--> connected, or disconnecting if no subscriber is left
/// connected --last subscriber cancelled--> disconnecting
/// disconnecting --cancel() returned--> disconnected, or connecting if a subscriber came
/// ```
///
/// The thread that moves to `connecting` or `disconnecting` calls the upstream and then
/// settles the state; subscribers arriving or leaving meanwhile only change the count, so
/// connecting and disconnecting never overlap.
@usableFromInline
enum AutoconnectState {
  /// No connection and no subscriber.
  case disconnected
  /// A thread is calling `connect()`.
  case connecting(subscribers: Int)
  /// Connected through `connection`.
  case connected(any Cancellable, subscribers: Int)
  /// A thread is cancelling the connection.
  case disconnecting(subscribers: Int)

  /// What the thread that moved the state must do, after the lock.
  @usableFromInline
  enum Step {
    /// Call the upstream's `connect()`.
    case connect
    /// Cancel the connection.
    case disconnect(any Cancellable)
  }

  /// What a step did, for ``AutoconnectState/settle(_:)``.
  @usableFromInline
  enum Settled {
    /// `connect()` returned this connection.
    case connected(any Cancellable)
    /// The connection was cancelled.
    case disconnected
  }

  /// The subscribers counted.
  @inlinable
  var subscribers: Int {
    switch self {
    case .disconnected: 0
    case .connecting(let count), .connected(_, let count), .disconnecting(let count): count
    }
  }

  /// A subscriber arrived; the first one while disconnected connects.
  @inlinable
  mutating func subscribe() -> Step? {
    switch self {
    case .disconnected:
      self = .connecting(subscribers: 1)
      return .connect
    case .connecting(let count):
      self = .connecting(subscribers: count + 1)
    case .connected(let connection, let count):
      self = .connected(connection, subscribers: count + 1)
    case .disconnecting(let count):
      self = .disconnecting(subscribers: count + 1)
    }
    return nil
  }

  /// A subscriber cancelled; the last one while connected disconnects.
  mutating func release() -> Step? {
    switch self {
    case .disconnected:
      return nil
    case .connecting(let count):
      self = .connecting(subscribers: count - 1)
    case .connected(let connection, let count):
      guard count == 1 else {
        self = .connected(connection, subscribers: count - 1)
        return nil
      }
      self = .disconnecting(subscribers: 0)
      return .disconnect(connection)
    case .disconnecting(let count):
      self = .disconnecting(subscribers: count - 1)
    }
    return nil
  }

  /// Records what the settling thread's step did; returns the opposite step if the subscribers
  /// changed their minds meanwhile, or `nil` once the state is settled.
  @inlinable
  mutating func settle(_ settled: Settled) -> Step? {
    let count = subscribers
    switch settled {
    case .connected(let connection):
      guard count > 0 else {
        self = .disconnecting(subscribers: 0)
        return .disconnect(connection)
      }
      self = .connected(connection, subscribers: count)
      return nil
    case .disconnected:
      guard count > 0 else {
        self = .disconnected
        return nil
      }
      self = .connecting(subscribers: count)
      return .connect
    }
  }
}

// Sendable: `state` is guarded by `lock`; the upstream and the connection are
// called outside it.
extension Publishers.Autoconnect: @unchecked Sendable where Upstream: Sendable {}

extension Publishers.Autoconnect {
  /// The subscriber attached to the upstream. The downstream gets a ``Counted`` subscription
  /// that looks like the upstream's own (its description and identifier), as in Combine.
  // Sendable: all mutable state is in `link` and `counted`, which guard it with locks; the
  // parent, upstream and downstream are called outside them.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    typealias Input = Output

    @usableFromInline
    let link: PassThroughLink<Downstream, Void>
    /// The publisher that counts this subscriber, until the subscriber's first `cancel()`: as in
    /// Combine, a subscriber that completed still counts until it cancels.
    private let counted: LockedState<Publishers.Autoconnect<Upstream>?>
    /// The publisher, for the downstream's subscription to show (as Combine's does).
    private let parent: Publishers.Autoconnect<Upstream>
    /// The upstream's subscription, kept after the end: as Combine's, every `cancel()` reaches
    /// it, also after the completion and when repeated (OpenCombine's
    /// `AutoconnectTests.testBasicRefcountBehavior`); a subscription ignores a cancel it no
    /// longer needs.
    private let cancelTarget = LockedState<(any Subscription)?>(nil)

    @usableFromInline
    init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
      link = PassThroughLink(downstream: downstream, extra: ())
      counted = LockedState(parent)
      self.parent = parent
    }

    @usableFromInline
    var description: String { "Autoconnect" }

    /// As Combine's: the `Autoconnect` publisher (`parent`, `nil` once this subscriber has
    /// cancelled) and the `downstream` (`nil` once the subscription ended and let go of it).
    @usableFromInline
    var customMirror: Mirror {
      let downstream = link.lock.withLock { () -> Downstream? in
        switch link.state {
        case .awaiting(let delivery), .active(_, let delivery): delivery.downstream
        case .terminal: nil
        }
      }
      let parent = counted.withLock { $0 }
      return Mirror(
        self,
        children: [
          "parent": parent as Any,
          "downstream": downstream.map { $0 as Any } ?? (nil as Downstream? as Any),
        ]
      )
    }

    /// The description, as Combine's playground display.
    @usableFromInline
    var playgroundDescription: Any { description }

    @usableFromInline
    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      let previous = cancelTarget.withLock { target in
        defer { target = subscription }
        return target
      }
      _ = previous  // none: the link takes one subscription
      delivery.downstream.receive(
        subscription: Counted(parent: parent, inner: self, upstream: subscription)
      )
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
      guard let delivery = link.delivery() else { return .none }
      return delivery.downstream.receive(input)
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
      let parent = counted.withLock { parent in
        defer { parent = nil }
        return parent
      }
      let ended = link.cancel()
      parent?.release()
      _ = ended  // the downstream, released after the calls
      cancelTarget.withLock { $0 }?.cancel()
    }
  }

  /// The subscription the downstream gets: it passes requests and the cancel to ``Inner``, and
  /// shows the upstream subscription's description and identifier, as Combine's does. It has no
  /// mirror of its own, so a mirror shows its two fields, named and described as the fields of
  /// Combine's: the `parent` publisher and the `upstreamSubscription` (a ``Link``, described as
  /// the upstream's subscription).
  @usableFromInline
  struct Counted<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    let parent: Publishers.Autoconnect<Upstream>
    @usableFromInline
    let upstreamSubscription: Link<Downstream>

    @usableFromInline
    init(
      parent: Publishers.Autoconnect<Upstream>,
      inner: Inner<Downstream>,
      upstream: any Subscription
    ) {
      self.parent = parent
      self.upstreamSubscription = Link(inner: inner, upstream: upstream)
    }

    @usableFromInline
    var combineIdentifier: CombineIdentifier { upstreamSubscription.upstream.combineIdentifier }

    @usableFromInline
    var description: String { upstreamSubscription.description }

    @usableFromInline
    var playgroundDescription: Any { description }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) { upstreamSubscription.inner.request(demand) }

    @usableFromInline
    func cancel() { upstreamSubscription.inner.cancel() }
  }

  /// ``Counted``'s way to its subscriber, described as the upstream's subscription.
  @usableFromInline
  final class Link<Downstream: Subscriber>: CustomStringConvertible, Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    let inner: Inner<Downstream>
    // Sendable: the subscription is only read, to call it or describe it; a subscription may be
    // called from any thread.
    @usableFromInline
    nonisolated(unsafe) let upstream: any Subscription

    @usableFromInline
    init(inner: Inner<Downstream>, upstream: any Subscription) {
      self.inner = inner
      self.upstream = upstream
    }

    @usableFromInline
    var description: String { String(describing: upstream) }
  }
}
