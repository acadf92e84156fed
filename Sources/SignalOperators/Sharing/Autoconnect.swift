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
  /// Subscribers that complete still count; each `cancel()` releases one (also after the
  /// subscriber's completion, and again when repeated, as in Combine). A subscriber that arrives after the last one cancelled connects
  /// again, also after the upstream ended.
  ///
  /// A subscriber that arrives before `connect()` has returned, such as one subscribed from
  /// inside the first subscriber's `receive(subscription:)`, connects again, as in Combine.
  ///
  /// > Thread safety: Subscribing and cancelling are safe from any thread, also at the same time;
  /// > first subscribers from two threads at once may each connect, as in Combine.
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
      let connects = lock.withLock { state.subscribe() }
      upstream.receive(subscriber: Inner(parent: self, downstream: subscriber))
      guard connects else { return }
      let connection = upstream.connect()
      let replaced = lock.withLock { state.connected(connection) }
      _ = replaced  // released after the lock: dropping a connection may cancel it
    }

    /// One subscriber cancelled; disconnects if it was the last.
    @usableFromInline
    func release() {
      lock.withLock { state.release() }?.cancel()
    }
  }
}

/// The state of an `autoconnect()` publisher, as Combine's: the connection and the number of
/// subscribers counted since it was made.
///
/// ```
/// disconnected --a subscriber--> disconnected; the subscriber's thread subscribes it upstream,
///   calls connect(), then records connected(connection, 1)
/// connected --a subscriber--> connected(count + 1)
/// connected(1) --its subscriber cancelled--> disconnected; the connection is cancelled
/// connected(n > 1) --a subscriber cancelled--> connected(n - 1)
/// ```
///
/// The state becomes `connected` only once `connect()` has returned, as in Combine, so a
/// subscriber that arrives before that, also one subscribed from inside the first one's
/// `receive(subscription:)`, connects again, and the connection recorded last replaces the other
/// with a count of one (OpenCombine's `AutoconnectTests.testReentranceWhenConnecting`, run
/// against Combine). Subscribers from two threads at once connect once or twice, depending on
/// the interleaving, as in Combine.
@usableFromInline
enum AutoconnectState {
  /// No connection recorded.
  case disconnected
  /// Connected through `connection`.
  case connected(any Cancellable, subscribers: Int)

  /// A subscriber arrived; returns whether its thread must connect.
  @inlinable
  mutating func subscribe() -> Bool {
    guard case .connected(let connection, let count) = self else { return true }
    self = .connected(connection, subscribers: count + 1)
    return false
  }

  /// `connect()` returned `connection`: recorded with one subscriber; returns the connection it
  /// replaces, to release after the lock.
  @inlinable
  mutating func connected(_ connection: any Cancellable) -> (any Cancellable)? {
    defer { self = .connected(connection, subscribers: 1) }
    guard case .connected(let replaced, _) = self else { return nil }
    return replaced
  }

  /// A subscriber cancelled; returns the connection to cancel when it was the last.
  @usableFromInline
  mutating func release() -> (any Cancellable)? {
    guard case .connected(let connection, let count) = self else { return nil }
    guard count <= 1 else {
      self = .connected(connection, subscribers: count - 1)
      return nil
    }
    self = .disconnected
    return connection
  }
}

// Sendable: `state` is guarded by `lock`; the upstream and the connection are
// called outside it.
extension Publishers.Autoconnect: @unchecked Sendable where Upstream: Sendable {}

extension Publishers.Autoconnect {
  /// The subscriber attached to the upstream. The downstream gets a ``Counted`` subscription
  /// that looks like the upstream's own (its description and identifier), as in Combine.
  // Sendable: all mutable state is in `link` and `shownParent`, which guard it with locks; the
  // parent, upstream and downstream are called outside them.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    typealias Input = Output

    @usableFromInline
    let link: PassThroughLink<Downstream, Void>
    /// The publisher, for the mirror until the subscriber's first `cancel()` (an ended
    /// subscription shows what it let go of as `nil`).
    private let shownParent: LockedState<Publishers.Autoconnect<Upstream>?>
    /// The publisher, for the downstream's subscription to show (as Combine's does), and to count
    /// each `cancel()` with.
    private let parent: Publishers.Autoconnect<Upstream>
    /// The upstream's subscription, kept after the end: as Combine's, every `cancel()` reaches
    /// it, also after the completion and when repeated (OpenCombine's
    /// `AutoconnectTests.testBasicRefcountBehavior`); a subscription ignores a cancel it no
    /// longer needs.
    private let cancelTarget = LockedState<(any Subscription)?>(nil)

    @usableFromInline
    init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
      link = PassThroughLink(downstream: downstream, extra: ())
      shownParent = LockedState(parent)
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
      let parent = shownParent.withLock { $0 }
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

    /// As Combine's: every `cancel()` counts one subscriber leaving, also a repeated one
    /// (OpenCombine's `Autoconnect`, whose suite runs against Combine too, counts each; a
    /// subscriber that completed still counts until it cancels), and reaches the upstream's
    /// subscription.
    @usableFromInline
    func cancel() {
      let shown = shownParent.withLock { shown in
        defer { shown = nil }
        return shown
      }
      _ = shown  // released after the lock
      let ended = link.cancel()
      parent.release()
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
