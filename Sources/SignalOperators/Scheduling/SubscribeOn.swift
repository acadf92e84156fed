public import StreamCore

extension Publisher {
  /// Subscribes to the upstream, and requests from and cancels it, on `scheduler`.
  ///
  /// ```swift
  /// expensiveQuery
  ///   .subscribe(on: DispatchQueue(label: "db"))
  ///   .receive(on: DispatchQueue.main)
  ///   .sink { show($0) }
  /// ```
  ///
  /// The upstream's `subscribe` runs in an action on `scheduler`, and so does each
  /// `request(_:)` and the `cancel()` of the subscription. Values and the completion pass through
  /// on whatever thread the upstream sends them, as in Combine.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread; they return at once
  /// > and act on `scheduler`. Nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - scheduler: The scheduler to subscribe, request and cancel on.
  ///   - options: Options passed to `scheduler` for each action.
  /// - Returns: A publisher that subscribes on `scheduler`.
  public func subscribe<S: Scheduler>(
    on scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.SubscribeOn<Self, S> {
    Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
  }
}

extension Publishers {
  /// A publisher that subscribes to its upstream, and requests and cancels, on a scheduler.
  ///
  /// ```swift
  /// let background = Publishers.SubscribeOn(upstream: work, scheduler: queue, options: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/subscribe(on:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher subscribed to on the scheduler.
    public let upstream: Upstream

    /// The scheduler that subscribes, requests and cancels.
    public let scheduler: Context

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that subscribes to `upstream` on `scheduler`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher to subscribe to.
    ///   - scheduler: The scheduler to subscribe, request and cancel on.
    ///   - options: Options passed to the scheduler.
    public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
      self.upstream = upstream
      self.scheduler = scheduler
      self.options = options
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = Inner(
        upstream: upstream,
        downstream: subscriber,
        scheduler: scheduler,
        options: options
      )
      scheduler.schedule(options: options) { inner.subscribeUpstream() }
    }
  }
}

extension Publishers.SubscribeOn: Sendable
where Upstream: Sendable, Context.SchedulerOptions: Sendable {}

extension Publishers.SubscribeOn {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active
  /// awaitingSubscription / active --completion / cancel()--> terminal
  /// ```
  // Sendable: mutable state is guarded by `lock`; the upstream publisher is moved out under the
  // lock by the one scheduled action that subscribes; calls out happen outside the lock.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private enum Phase {
      case awaitingSubscription
      case active(any Subscription)
      case terminal
    }

    private let lock = Lock()
    private var phase = Phase.awaitingSubscription
    private var upstreamPublisher: Upstream?
    private var downstream: Downstream?
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(
      upstream: Upstream,
      downstream: Downstream,
      scheduler: Context,
      options: Context.SchedulerOptions?
    ) {
      self.upstreamPublisher = upstream
      self.downstream = downstream
      self.scheduler = scheduler
      self.options = options
    }

    /// Runs on the scheduler: subscribes this inner to the upstream publisher.
    func subscribeUpstream() {
      guard let publisher = lock.withLock({ upstreamPublisher.take() }) else { return }
      publisher.subscribe(self)
    }

    func receive(subscription: any Subscription) {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = phase, let downstream = self.downstream else {
          return nil
        }
        phase = .active(subscription)
        return downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .active = phase else { return nil }
        return self.downstream
      }
      return downstream?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // The upstream subscription is released after the lock.
      let released = lock.withLock { () -> (Downstream?, any Subscription)? in
        guard case .active(let upstream) = phase else { return nil }
        phase = .terminal
        return (self.downstream.take(), upstream)
      }
      released?.0?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let upstream = lock.withLock { () -> (any Subscription)? in
        guard case .active(let upstream) = phase else { return nil }
        return upstream
      }
      guard let upstream else { return }
      scheduler.schedule(options: options) { upstream.request(demand) }
    }

    func cancel() {
      let released = lock.withLock { () -> (Phase, Downstream?, Upstream?) in
        defer { phase = .terminal }
        return (phase, downstream.take(), upstreamPublisher.take())
      }
      guard case .active(let upstream) = released.0 else { return }
      scheduler.schedule(options: options) { upstream.cancel() }
    }

    var description: String { "SubscribeOn" }

    var playgroundDescription: Any { description }
  }
}
