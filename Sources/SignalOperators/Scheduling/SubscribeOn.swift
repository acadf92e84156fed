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
where Upstream: Sendable, Context: Sendable, Context.SchedulerOptions: Sendable {}

extension Publishers.SubscribeOn {
  /// Decides under `lock`, in ``SubscribeOnState``, and acts after it.
  // Sendable: `state` is guarded by `lock`; the upstream publisher is moved out under the lock
  // by the one scheduled action that subscribes; calls out happen outside the lock.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    private var state: SubscribeOnState<Upstream, Downstream>
    /// Held while the upstream's subscription is asked for values or cancelled, so those calls
    /// never overlap (Combine's upstream lock).
    private let upstreamGate = DeliveryGate()
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(
      upstream: Upstream,
      downstream: Downstream,
      scheduler: Context,
      options: Context.SchedulerOptions?
    ) {
      state = .awaitingSubscription(downstream, publisher: upstream)
      self.scheduler = scheduler
      self.options = options
    }

    /// Runs on the scheduler: subscribes this inner to the upstream publisher.
    func subscribeUpstream() {
      guard let publisher = lock.withLock({ state.takePublisher() }) else { return }
      publisher.subscribe(self)
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let downstream = lock.withLock { state.downstream }
      return downstream?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let ended = lock.withLock { state.complete() }
      ended?.downstream.receive(completion: completion)
    }  // the upstream subscription is released here, after the lock

    func request(_ demand: Subscribers.Demand) {
      guard let upstream = lock.withLock({ state.upstream }).map(SendableByContract.init) else {
        return
      }
      scheduler.schedule(options: options) { self.requestUpstream(upstream.wrapped, demand) }
    }

    func cancel() {
      guard let upstream = lock.withLock({ state.cancel() })?.upstream.map(SendableByContract.init)
      else { return }
      scheduler.schedule(options: options) { self.cancelUpstream(upstream.wrapped) }
    }  // the subscriber and an unsubscribed upstream publisher are released after the lock

    /// Asks the upstream's subscription holding `upstreamGate`. A request back from inside one
    /// (the upstream's `request(_:)` delivering a value whose subscriber requests, on an
    /// immediate scheduler) traps, as Combine's does (OpenCombine's
    /// `SubscribeOnTests.testCrashWhenRequestingRecursively`, verified against Combine).
    private func requestUpstream(_ upstream: any Subscription, _ demand: Subscribers.Demand) {
      let me = ThreadID.current
      precondition(
        !upstreamGate.isHeld(by: me),
        "subscribe(on:): request(_:) reached the upstream again from inside its own request(_:), "
          + "on the same thread (an immediate scheduler)"
      )
      upstreamGate.pass(as: me) { upstream.request(demand) }
    }

    /// Cancels the upstream's subscription holding `upstreamGate`; from inside its own
    /// `request(_:)` (a subscriber that cancels from `receive(_:)` on an immediate scheduler),
    /// at once: Combine's suite doesn't show it trapping there, so it doesn't trap here.
    private func cancelUpstream(_ upstream: any Subscription) {
      let me = ThreadID.current
      if upstreamGate.isHeld(by: me) {
        upstream.cancel()
      } else {
        upstreamGate.pass(as: me) { upstream.cancel() }
      }
    }

    var description: String { "SubscribeOn" }

    var playgroundDescription: Any { description }
  }
}

/// The state of a `subscribe(on:options:)` subscription, as data: each transition runs under
/// the operator's lock and returns what to do after it.
///
/// ```
/// awaitingSubscription(publisher) --takePublisher (on the scheduler)--> awaitingSubscription(nil)
/// awaitingSubscription --receive(subscription:)--> active --complete() / cancel()--> terminal
/// awaitingSubscription --cancel()--> terminal (a publisher not yet subscribed is dropped)
/// ```
enum SubscribeOnState<Upstream, Downstream> {
  /// Before the upstream's subscription arrives; `publisher` until the scheduler subscribes it.
  case awaitingSubscription(Downstream, publisher: Upstream?)
  /// Subscribed to the upstream.
  case active(any Subscription, Downstream)
  /// Completed or cancelled: nothing is held.
  case terminal

  /// What ending lets go of, after the lock.
  struct Ended {
    /// The upstream's subscription, if it had arrived (cancelled on the scheduler).
    let upstream: (any Subscription)?
    /// The subscriber.
    let downstream: Downstream
    /// The upstream publisher, if the scheduler had not subscribed to it yet.
    let publisher: Upstream?
  }

  /// The upstream publisher, for the scheduler to subscribe to; `nil` after the first call or
  /// once cancelled.
  mutating func takePublisher() -> Upstream? {
    guard case .awaitingSubscription(let downstream, let publisher?) = self else { return nil }
    self = .awaitingSubscription(downstream, publisher: nil)
    return publisher
  }

  /// Stores the first upstream subscription; returns the subscriber, or `nil` when
  /// `subscription` must be cancelled.
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream, _) = self else { return nil }
    self = .active(subscription, downstream)
    return downstream
  }

  /// The subscriber, while subscribed.
  var downstream: Downstream? {
    guard case .active(_, let downstream) = self else { return nil }
    return downstream
  }

  /// The upstream's subscription, while subscribed.
  var upstream: (any Subscription)? {
    guard case .active(let upstream, _) = self else { return nil }
    return upstream
  }

  /// The upstream completed; `nil` unless subscribed.
  mutating func complete() -> Ended? {
    guard case .active(let upstream, let downstream) = self else { return nil }
    self = .terminal
    return Ended(upstream: upstream, downstream: downstream, publisher: nil)
  }

  /// Ends everything; `nil` once terminal.
  mutating func cancel() -> Ended? {
    switch self {
    case .awaitingSubscription(let downstream, let publisher):
      self = .terminal
      return Ended(upstream: nil, downstream: downstream, publisher: publisher)
    case .active:
      return complete()
    case .terminal:
      return nil
    }
  }
}
