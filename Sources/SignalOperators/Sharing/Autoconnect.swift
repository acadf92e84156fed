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
  /// Subscribers that complete still count; only cancelling releases one. A subscriber that
  /// arrives after the last one cancelled connects again.
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
    private enum Phase {
      case disconnected
      case connecting
      case connected(any Cancellable)
      case disconnecting
    }

    private enum Step {
      case connect
      case disconnect(any Cancellable)
    }

    /// The connectable publisher to connect and disconnect.
    public final let upstream: Upstream

    private let lock = Lock()
    private var phase = Phase.disconnected
    private var subscribers = 0

    /// Creates a publisher that connects `upstream` on demand.
    ///
    /// - Parameter upstream: The connectable publisher to connect and disconnect.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let shouldConnect = lock.withLock { () -> Bool in
        subscribers += 1
        guard case .disconnected = phase else { return false }
        phase = .connecting
        return true
      }
      upstream.subscribe(Inner(parent: self, downstream: subscriber))
      if shouldConnect { settle(from: .connect) }
    }

    /// One subscriber cancelled; disconnects if it was the last.
    fileprivate func release() {
      let step = lock.withLock { () -> Step? in
        subscribers -= 1
        guard subscribers == 0, case .connected(let connection) = phase else { return nil }
        phase = .disconnecting
        return .disconnect(connection)
      }
      if let step { settle(from: step) }
    }

    /// Connects or disconnects, then repeats while the subscriber count asks for the opposite.
    private func settle(from first: Step) {
      var step: Step? = first
      while let current = step {
        switch current {
        case .connect:
          let connection = upstream.connect()
          step = lock.withLock { () -> Step? in
            guard subscribers > 0 else {
              phase = .disconnecting
              return .disconnect(connection)
            }
            phase = .connected(connection)
            return nil
          }
        case .disconnect(let connection):
          connection.cancel()
          step = lock.withLock { () -> Step? in
            guard subscribers > 0 else {
              phase = .disconnected
              return nil
            }
            phase = .connecting
            return .connect
          }
        }
      }
    }
  }
}

// Sendable: `phase` and `subscribers` are guarded by `lock`; the upstream and the connection are
// called outside it.
extension Publishers.Autoconnect: @unchecked Sendable where Upstream: Sendable {}

extension Publishers.Autoconnect {
  // Sendable: all mutable state is in `link`, which guards it with a lock; the parent, upstream
  // and downstream are called outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let link: PassThroughLink<Downstream, Publishers.Autoconnect<Upstream>>
    private let upstreamDescription = LockedState<String?>(nil)

    init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
      link = PassThroughLink(downstream: downstream, extra: parent)
    }

    /// The upstream subscription's description.
    var description: String { upstreamDescription.withLock { $0 } ?? "Autoconnect" }

    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      let text = String(describing: subscription)
      upstreamDescription.withLock { $0 = text }
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
      guard let ended = link.cancel() else { return }
      ended.extra.release()
      ended.upstream?.cancel()
    }
  }
}
