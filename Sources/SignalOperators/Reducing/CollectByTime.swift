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
  /// groups requests `n * count` values upstream (so does the demand returned for a full group;
  /// for a group an interval cut it only adds to the subscriber's demand); with
  /// ``StreamCore/Publishers/TimeGroupingStrategy/byTime(_:_:)`` the operator asks for one value
  /// at each downstream request and one more after each value, as Combine's. When the
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
      state = .awaitingSubscription(downstream, CollectByTimeLive())
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
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      if lock.withLock({ state.receive(input, count: count) }) { scheduleDrain() }
      // `.byTime` asks for one value at a time, as Combine's (CombineX's compatibility spec
      // "should always request 1 when strategy is by time", run against Combine).
      return count == nil ? .max(1) : .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let completed = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      completed.timer?.cancel()
      if completed.claimed { scheduleDrain() }
    }

    func request(_ demand: Subscribers.Demand) {
      let (upstream, claimed) = lock.withLock { (state.upstream, state.request(demand)) }
      // As Combine's: `count` values per array requested, or one value per request by time.
      if let upstream { upstream.request(count.map { demand * $0 } ?? .max(1)) }
      if claimed { scheduleDrain() }
    }

    func cancel() {
      guard let cancelled = lock.withLock({ state.cancel() }) else { return }
      cancelled.live?.timer?.cancel()
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
    ///
    /// As Combine's (CombineX's compatibility spec "should ignore sync backpressure from
    /// scheduling sending when strategy is byTimeOrCount", run against Combine): the demand the
    /// subscriber returns for a full array is requested upstream, `count` values per array; for
    /// an array an interval or the completion cut it is only added to the subscriber's demand.
    private func drain() {
      var full = false
      DeliveryOutlet.drain(lock) { more in
        let step = state.nextStep(adding: more)
        if case .value(_, let group)? = step { full = group.count == count }
        return step
      } forward: { more in
        guard let count, full else { return }
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
      let (downstream, demand, live) = state.snapshot
      return (downstream, state.upstream, live?.group ?? [], demand)
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

/// What `collect(_:options:)` keeps while subscribed, in a ``TimedState``: the group being
/// collected and the interval timer.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active (the caller starts the timer)
/// active --tick() with demand / count reached--> active (the group goes to the outlet)
/// active --receive(completion:)--> finishing (the last group, unless it failed, then the
///                                             completion go to the outlet)
/// ```
struct CollectByTimeLive<Value> {
  /// The group being collected.
  var group: [Value] = []
  /// The interval timer, once started.
  var timer: (any Cancellable)?

  /// What the upstream's completion hands out.
  struct Completed {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription (released: it completed).
    let upstream: (any Subscription)?
    /// Groups a failure dropped, released after the lock.
    let dropped: RingBuffer<[Value]>
    /// The group being collected when a failure came.
    let droppedGroup: [Value]
    /// Whether the caller claimed the drain and must schedule it.
    let claimed: Bool
  }
}

/// The state of a `collect(_:options:)` subscription.
typealias CollectByTimeState<Downstream: Subscriber, Value> = TimedState<
  Downstream, CollectByTimeLive<Value>
>

extension TimedState {
  /// Keeps the interval timer; `false` when no longer active (cancel it).
  mutating func install<Element>(_ timer: any Cancellable) -> Bool
  where Live == CollectByTimeLive<Element> {
    updateActive(otherwise: false) { active in
      active.live.timer = timer
      return true
    }
  }

  /// Adds `value` to the group; a group of `count` values goes to the outlet. `true`: the
  /// caller claimed the drain.
  mutating func receive<Element>(_ value: Element, count: Int?) -> Bool
  where Live == CollectByTimeLive<Element>, Value == [Element] {
    updateActive(otherwise: false) { active in
      active.live.group.append(value)
      guard let count, active.live.group.count >= count else { return false }
      return Self.cut(&active)
    }
  }

  /// An interval ended: the group goes to the outlet if the subscriber has demand for it.
  /// `true`: the caller claimed the drain.
  mutating func tick<Element>() -> Bool
  where Live == CollectByTimeLive<Element>, Value == [Element] {
    updateActive(otherwise: false) { active in
      guard !active.live.group.isEmpty,
        active.outlet.queue.demand > .max(active.outlet.queue.values.count)
      else { return false }
      return Self.cut(&active)
    }
  }

  /// The upstream completed: the last group (unless it failed) and the completion go to the
  /// outlet; a failure drops the groups not yet delivered. `nil` when not active.
  mutating func receive<Element>(
    completion: Subscribers.Completion<Failure>
  ) -> CollectByTimeLive<Element>.Completed?
  where Live == CollectByTimeLive<Element>, Value == [Element] {
    var dropped = RingBuffer<[Element]>()
    var droppedGroup: [Element] = []
    var claimed = false
    let cut = updateActive(otherwise: false) { active in
      if case .failure = completion {
        dropped = active.outlet.queue.values.takeAll()
        droppedGroup = active.live.group
        active.live.group = []
      } else if !active.live.group.isEmpty {
        claimed = Self.cut(&active)
      }
      return true
    }
    guard cut else { return nil }
    let finished = finish(completion)
    return CollectByTimeLive.Completed(
      timer: finished.live?.timer,
      upstream: finished.upstream,
      dropped: dropped,
      droppedGroup: droppedGroup,
      claimed: claimed || finished.claimed
    )
  }

  /// Moves the group being collected to the outlet; `true`: the caller claimed the drain.
  private static func cut<Element>(_ active: inout Active) -> Bool
  where Live == CollectByTimeLive<Element>, Value == [Element] {
    let group = active.live.group
    active.live.group = []
    active.live.group.reserveCapacity(group.count)
    return active.outlet.queue.enqueue(group)
  }
}
