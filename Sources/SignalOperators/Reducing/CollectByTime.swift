public import StreamCore

extension Publisher {
  /// Collects values into arrays and publishes one every interval, or as soon as it is full.
  ///
  /// ```swift
  /// logLines
  ///   .collect(.byTimeOrCount(DispatchQueue.main, .seconds(1), 100))
  ///   .sink { upload($0) }
  /// ```
  ///
  /// A repeating timer on the strategy's scheduler cuts the values received since the last
  /// group into a new group, if there are any and the subscriber has demand for it (otherwise
  /// they keep collecting). With ``StreamCore/Publishers/TimeGroupingStrategy/byTimeOrCount(_:_:_:)`` a
  /// group is also cut as soon as it holds `count` values, and each downstream request of `n`
  /// groups requests `n * count` values upstream; with
  /// ``StreamCore/Publishers/TimeGroupingStrategy/byTime(_:_:)`` the operator requests `.unlimited`. When the
  /// upstream finishes, the values collected so far go out as a last group, then `.finished`; a
  /// failure drops them and is sent on.
  ///
  /// <!-- marbles:collect-by-time -->
  /// Marble diagram of `collect(.byTime(scheduler, 4))`, made by running it (a character is a tick
  /// of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -ab---c-----d-|
  /// output  ----x---y---z-|
  ///         x = [a, b], y = [c], z = [d]
  /// ```
  ///
  /// ![Marble diagram of collect(.byTime(scheduler, 4))](marble-collect-by-time)
  /// <!-- /marbles:collect-by-time -->
  ///
  /// <!-- marbles:collect-by-time-or-count -->
  /// Marble diagram of `collect(.byTimeOrCount(scheduler, 4, 2))`, made by running it (a character
  /// is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -abc--d----e--|
  /// output  --x-y---z---w-|
  ///         x = [a, b], y = [c], z = [d], w = [e]
  /// ```
  ///
  /// ![Marble diagram of collect(.byTimeOrCount(scheduler, 4, 2))](marble-collect-by-time-or-count)
  /// <!-- /marbles:collect-by-time-or-count -->
  ///
  /// > Thread safety: Upstream may send from any thread. Groups and the completion are delivered
  /// > on the strategy's scheduler, one at a time. `request(_:)` and `cancel()` are safe from any
  /// > thread; nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - strategy: The scheduler, interval and optional count that cut groups.
  ///   - options: Options passed to the scheduler.
  /// - Returns: A publisher of arrays of upstream values.
  public func collect<S: Scheduler>(
    _ strategy: Publishers.TimeGroupingStrategy<S>,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.CollectByTime<Self, S> {
    Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
  }
}

extension Publishers {
  /// How ``CollectByTime`` cuts its groups.
  ///
  /// ```swift
  /// upstream.collect(.byTime(queue, .milliseconds(500)))
  /// ```
  ///
  /// > Thread safety: A value type; `Sendable` when the scheduler's stride is.
  public enum TimeGroupingStrategy<Context: Scheduler> {
    /// Cut a group every interval, on the scheduler.
    case byTime(Context, Context.SchedulerTimeType.Stride)

    /// Cut a group every interval, or as soon as it holds the given count of values.
    case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
  }

  /// A publisher that collects its upstream's values into arrays cut by time, or by time or
  /// count.
  ///
  /// ```swift
  /// let batches = Publishers.CollectByTime(
  ///   upstream: events, strategy: .byTime(queue, .seconds(1)), options: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/collect(_:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = [Upstream.Output]
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are collected.
    public let upstream: Upstream

    /// The scheduler, interval and optional count that cut groups.
    public let strategy: TimeGroupingStrategy<Context>

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that collects `upstream`'s values into groups.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are collected.
    ///   - strategy: The scheduler, interval and optional count that cut groups; a count must
    ///     be greater than zero.
    ///   - options: Options passed to the scheduler.
    public init(
      upstream: Upstream,
      strategy: TimeGroupingStrategy<Context>,
      options: Context.SchedulerOptions?
    ) {
      if case .byTimeOrCount(_, _, let count) = strategy {
        precondition(count > 0, "CollectByTime: count must be greater than zero, got \(count)")
      }
      self.upstream = upstream
      self.strategy = strategy
      self.options = options
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, strategy: strategy, options: options))
    }
  }
}

extension Publishers.TimeGroupingStrategy: Sendable
where Context: Sendable, Context.SchedulerTimeType.Stride: Sendable {}

extension Publishers.CollectByTime: Sendable
where
  Upstream: Sendable,
  Context: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

extension Publishers.CollectByTime {
  /// Decides under `lock`, in ``CollectByTimeState``, and acts after it. The timer captures the
  /// inner weakly and is cancelled at the end; a drain claimed off the scheduler (by a value, a
  /// request or the completion) is scheduled on it, strongly captured, and a tick drains in
  /// place.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the thread that claimed the outlet's drain.
  fileprivate final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Upstream.Output

    fileprivate let lock = Lock()
    fileprivate var state: CollectByTimeState<Downstream, Input>
    private let scheduler: Context
    private let interval: Context.SchedulerTimeType.Stride
    /// The most values in a group, for `byTimeOrCount`.
    private let count: Int?
    private let options: Context.SchedulerOptions?

    init(
      downstream: Downstream,
      strategy: Publishers.TimeGroupingStrategy<Context>,
      options: Context.SchedulerOptions?
    ) {
      state = .awaitingSubscription(downstream)
      switch strategy {
      case .byTime(let scheduler, let interval):
        self.scheduler = scheduler
        self.interval = interval
        count = nil
      case .byTimeOrCount(let scheduler, let interval, let count):
        self.scheduler = scheduler
        self.interval = interval
        self.count = count
      }
      self.options = options
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      // The timer starts once the downstream has its subscription, so no tick (on another
      // thread, with a concurrent scheduler) comes before or during its receive(subscription:).
      let timer = scheduler.startTimer(every: interval, options: options) { [weak self] in
        self?.tick()
      }
      guard lock.withLock({ state.install(timer) }) else {
        timer.cancel()
        return
      }
      if count == nil { subscription.request(.unlimited) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      if lock.withLock({ state.receive(input, count: count) }) { scheduleDrain() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let completed = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      completed.timer?.cancel()
      if completed.claimed { scheduleDrain() }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let requested = lock.withLock { state.requested(demand) }
      if let count, let upstream = requested.upstream { upstream.request(demand * count) }
      if requested.claimed { scheduleDrain() }
    }

    func cancel() {
      guard let cancelled = lock.withLock({ state.cancel() }) else { return }
      cancelled.timer?.cancel()
      cancelled.upstream?.cancel()
    }

    private func scheduleDrain() {
      scheduler.schedule(options: options) { self.drain() }
    }

    /// Runs on the scheduler every interval: cuts a group if there is demand for it.
    private func tick() {
      if lock.withLock({ state.tick() }) { drain() }
    }

    /// Delivers ready groups within demand, then the completion; runs on the scheduler.
    private func drain() {
      DeliveryOutlet.drain(lock) { more in
        state.nextStep(adding: more)
      } forward: { more in
        guard let count else { return }
        lock.withLock { state.upstream }?.request(more * count)
      }
    }

    var description: String { "CollectByTime" }

    var playgroundDescription: Any { description }
  }
}

extension Publishers.CollectByTime.Inner: CustomReflectable {
  /// The `downstream`, the `upstreamSubscription`, the group being collected (`buffer`) and the
  /// demand not yet met (`downstreamDemand`). The downstream and the upstream subscription are
  /// `nil` once the subscription ended and let go of them (the upstream subscription already
  /// once the upstream completed).
  var customMirror: Mirror {
    let (downstream, upstream, buffer, demand) = lock.withLock {
      () -> (Downstream?, (any Subscription)?, [Upstream.Output], Subscribers.Demand) in
      switch state {
      case .awaitingSubscription(let downstream): (downstream, nil, [], .none)
      case .active(let active):
        (active.outlet.downstream, active.upstream, active.group, active.outlet.queue.demand)
      case .finishing(let outlet): (outlet.downstream, nil, [], outlet.queue.demand)
      case .terminal: (nil, nil, [], .none)
      }
    }
    return Mirror(
      self,
      children: [
        "downstream": downstream.map { $0 as Any } ?? (nil as Downstream? as Any),
        "upstreamSubscription": upstream as Any, "buffer": buffer, "downstreamDemand": demand,
      ]
    )
  }
}

/// The state of a `collect(_:options:)` subscription, as data: each transition runs under the
/// operator's lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active (the caller starts the timer)
/// active --tick() with demand / count reached--> active (the group goes to the outlet)
/// active --receive(completion:)--> finishing (the last group, unless it failed, then the
///                                             completion go to the outlet)
/// active / finishing --completion delivered / cancel()--> terminal
/// ```
enum CollectByTimeState<Downstream: Subscriber, Value>: OutletState
where Downstream.Input == [Value] {
  typealias Failure = Downstream.Failure

  /// Before the upstream's subscription arrives.
  case awaitingSubscription(Downstream)
  /// Subscribed.
  case active(Active)
  /// The completion is in the outlet's queue, after the groups still there.
  case finishing(DeliveryOutlet<Downstream>)
  /// Completed or cancelled: everything is released.
  case terminal

  /// What exists while subscribed.
  struct Active {
    /// The subscriber's end; its queue holds the groups cut and not yet delivered.
    var outlet: DeliveryOutlet<Downstream>
    /// The upstream's subscription.
    var upstream: any Subscription
    /// The interval timer, once started.
    var timer: (any Cancellable)?
    /// The group being collected.
    var group: [Value] = []
  }

  /// What the upstream's completion hands out.
  struct Completed {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription (released: it completed).
    let upstream: any Subscription
    /// Groups a failure dropped, released after the lock.
    let dropped: RingBuffer<[Value]>
    /// The group being collected when a failure came.
    let droppedGroup: [Value]
    /// Whether the caller claimed the drain and must schedule it.
    let claimed: Bool
  }

  /// What a request hands out.
  struct Requested {
    /// The upstream's subscription, for `byTimeOrCount` to pass the request on.
    var upstream: (any Subscription)?
    /// Whether the caller claimed the drain and must schedule it.
    var claimed = false
  }

  /// What `cancel()` lets go of.
  struct Cancelled {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription to cancel (`nil` once it completed).
    let upstream: (any Subscription)?
    /// The group being collected.
    let group: [Value]
    /// The subscriber and the groups it had not yet received.
    let outlet: DeliveryOutlet<Downstream>.Released
  }

  /// The upstream's subscription while active.
  var upstream: (any Subscription)? {
    guard case .active(let active) = self else { return nil }
    return active.upstream
  }

  /// Stores the upstream's subscription; returns the subscriber to hand this subscription to,
  /// or `nil` when the subscription must be cancelled.
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = self else { return nil }
    self = .active(Active(outlet: DeliveryOutlet(downstream), upstream: subscription))
    return downstream
  }

  /// Keeps the interval timer; `false` when no longer active (cancel it).
  mutating func install(_ timer: any Cancellable) -> Bool {
    guard case .active(var active) = self else { return false }
    self = .terminal
    active.timer = timer
    self = .active(active)
    return true
  }

  /// Adds `value` to the group; a group of `count` values goes to the outlet. `true`: the
  /// caller claimed the drain.
  mutating func receive(_ value: Value, count: Int?) -> Bool {
    guard case .active(var active) = self else { return false }
    self = .terminal
    defer { self = .active(active) }
    active.group.append(value)
    guard let count, active.group.count >= count else { return false }
    return Self.cut(&active)
  }

  /// An interval ended: the group goes to the outlet if the subscriber has demand for it.
  /// `true`: the caller claimed the drain.
  mutating func tick() -> Bool {
    guard case .active(var active) = self, !active.group.isEmpty,
      active.outlet.queue.demand > .max(active.outlet.queue.values.count)
    else { return false }
    self = .terminal
    defer { self = .active(active) }
    return Self.cut(&active)
  }

  /// The upstream completed: the last group (unless it failed) and the completion go to the
  /// outlet; a failure drops the groups not yet delivered. `nil` when not active.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Completed? {
    guard case .active(var active) = self else { return nil }
    self = .terminal
    var dropped = RingBuffer<[Value]>()
    var droppedGroup: [Value] = []
    var claimed = false
    if case .failure = completion {
      dropped = active.outlet.queue.values.takeAll()
      droppedGroup = active.group
    } else if !active.group.isEmpty {
      claimed = active.outlet.queue.enqueue(active.group)
    }
    if active.outlet.queue.finish(completion) { claimed = true }
    self = .finishing(active.outlet)
    return Completed(
      timer: active.timer,
      upstream: active.upstream,
      dropped: dropped,
      droppedGroup: droppedGroup,
      claimed: claimed
    )
  }

  /// Adds demand; returns the upstream's subscription, for `byTimeOrCount` to pass the request
  /// on.
  mutating func requested(_ demand: Subscribers.Demand) -> Requested {
    Requested(upstream: upstream, claimed: request(demand))
  }

  /// Runs `body` on the outlet of the current case; `nil` when it has none.
  mutating func withOutlet<Result>(
    _ body: (inout DeliveryOutlet<Downstream>) -> Result
  ) -> Result? {
    switch self {
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      return body(&active.outlet)
    case .finishing(var outlet):
      self = .terminal
      defer { self = .finishing(outlet) }
      return body(&outlet)
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Becomes terminal.
  mutating func end() { self = .terminal }

  /// Ends everything; `nil` when there is nothing to end.
  mutating func cancel() -> Cancelled? {
    switch self {
    case .active(var active):
      self = .terminal
      return Cancelled(
        timer: active.timer,
        upstream: active.upstream,
        group: active.group,
        outlet: active.outlet.cancel()
      )
    case .finishing(var outlet):
      self = .terminal
      return Cancelled(timer: nil, upstream: nil, group: [], outlet: outlet.cancel())
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Moves the group being collected to the outlet; `true`: the caller claimed the drain.
  private static func cut(_ active: inout Active) -> Bool {
    let group = active.group
    active.group = []
    active.group.reserveCapacity(group.count)
    return active.outlet.queue.enqueue(group)
  }
}
