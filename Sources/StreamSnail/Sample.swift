import PropertyWrappers
import SignalOperators
public import StreamCore

extension Publisher {
  /// On every tick of `interval`, emits the latest value received since the previous tick, if
  /// any; this is Snail's `throttle(_:)`, a timer-driven sampler.
  ///
  /// ```swift
  /// positions.sample(every: .milliseconds(100), scheduler: DispatchQueue.main)
  ///   .sink { redraw(at: $0) }
  /// ```
  ///
  /// The ticks start when the subscription starts and repeat until it ends. A value is
  /// therefore emitted at the next tick, never at once, and values replaced before a tick are
  /// dropped: `1, 2` within a tick emit `2`. Without downstream demand at a tick, the value
  /// waits for a later tick (a newer value replaces it). On finish, a waiting value is emitted
  /// first if there is demand; on failure it is dropped. Values and the completion are
  /// delivered on `scheduler`. It requests `.unlimited` upstream. Unlike Combine's
  /// `throttle(for:scheduler:latest:)`, the first value is not emitted at once.
  ///
  /// <!-- marbles:sample -->
  /// Marble diagram of `sample(every: 3, scheduler:)`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -ab--c-----d-|
  /// output  ---b--c-----d|
  /// ```
  ///
  /// ![Marble diagram of sample(every: 3, scheduler:)](marble-sample)
  /// <!-- /marbles:sample -->
  ///
  /// > Thread safety: Upstream may send from any thread; downstream is called on `scheduler`,
  /// > which should run one action at a time.
  ///
  /// - Parameters:
  ///   - interval: The time between ticks.
  ///   - scheduler: The scheduler that ticks and delivers.
  ///   - options: Options for the scheduler.
  /// - Returns: A ``StreamCore/Publishers/Sample`` publisher.
  public func sample<S: Scheduler>(
    every interval: S.SchedulerTimeType.Stride,
    scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.Sample<Self, S> {
    Publishers.Sample(upstream: self, interval: interval, scheduler: scheduler, options: options)
  }
}

extension Publishers {
  /// Emits, on each tick of an interval, the latest value received since the previous tick.
  ///
  /// ```swift
  /// let sampled = Publishers.Sample(
  ///   upstream: positions, interval: .milliseconds(100), scheduler: DispatchQueue.main,
  ///   options: nil)
  /// ```
  ///
  /// Made by ``StreamCore/Publisher/sample(every:scheduler:options:)``.
  ///
  /// > Thread safety: A value type; `Sendable` when its parts are. Upstream may send from any
  /// > thread; downstream is called on the scheduler.
  public struct Sample<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are sampled.
    public let upstream: Upstream
    /// The time between ticks.
    public let interval: Context.SchedulerTimeType.Stride
    /// The scheduler that ticks and delivers.
    public let scheduler: Context
    /// Options for the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a sampler; see ``StreamCore/Publisher/sample(every:scheduler:options:)``.
    public init(
      upstream: Upstream,
      interval: Context.SchedulerTimeType.Stride,
      scheduler: Context,
      options: Context.SchedulerOptions?
    ) {
      self.upstream = upstream
      self.interval = interval
      self.scheduler = scheduler
      self.options = options
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, sampler: self))
    }
  }
}

extension Publishers.Sample: Sendable
where
  Upstream: Sendable,
  Context: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

extension Publishers.Sample {
  /// Decides under `lock`, in ``SampleState``, and acts after it. The timer captures the inner
  /// weakly; the scheduled completion captures it strongly so that it is delivered. Ticks hand
  /// the latest value to the outlet, whose drain keeps deliveries one at a time even when ticks
  /// overlap on a concurrent scheduler.
  // Sendable: all mutable state is guarded by `lock`; downstream and upstream are called
  // outside it, the downstream only by the thread that claimed the outlet's drain.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    private var state: SampleState<Downstream>
    private let scheduler: Context
    private let interval: Context.SchedulerTimeType.Stride
    private let options: Context.SchedulerOptions?

    var description: String { "Sample" }

    /// The `downstream` (`nil` once released), the `upstreamSubscription` until the upstream
    /// completed, and the `latest` value the next tick samples.
    var customMirror: Mirror {
      let (downstream, upstream, latest) = lock.withLock {
        () -> (Downstream?, (any Subscription)?, Output?) in
        switch state {
        case .awaitingSubscription(let downstream): (downstream, nil, nil)
        case .active(let active): (active.outlet.downstream, active.upstream, active.latest)
        case .completing(let completing): (completing.outlet.downstream, nil, completing.latest)
        case .finishing(let outlet): (outlet.downstream, nil, nil)
        case .terminal: (nil, nil, nil)
        }
      }
      return Mirror(
        self,
        children: [
          "downstream": downstream as Any, "upstreamSubscription": upstream as Any,
          "latest": latest as Any,
        ]
      )
    }

    var playgroundDescription: Any { description }

    init(downstream: Downstream, sampler: Publishers.Sample<Upstream, Context>) {
      state = .awaitingSubscription(downstream)
      scheduler = sampler.scheduler
      interval = sampler.interval
      options = sampler.options
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
      lock.withLock { state.upstream }?.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      _ = lock.withLock { state.receive(input) }  // the replaced value, released after the lock
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let completed = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      completed.timer?.cancel()
      scheduler.schedule(options: options) { self.finish(completion) }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      if lock.withLock({ state.request(demand) }) { drain() }
    }

    func cancel() {
      guard let cancelled = lock.withLock({ state.cancel() }) else { return }
      cancelled.timer?.cancel()
      cancelled.upstream?.cancel()
    }

    /// Runs on the scheduler at every tick: emits the latest value if there is demand.
    private func tick() {
      if lock.withLock({ state.tick() }) { drain() }
    }

    /// Runs on the scheduler after upstream completed: flushes the latest value, then ends.
    private func finish(_ completion: Subscribers.Completion<Failure>) {
      let finished = lock.withLock { state.finish(completion) }
      _ = finished.dropped  // released after the lock
      if finished.claimed { drain() }
    }

    private func drain() {
      DeliveryOutlet.drain(lock) { more in state.nextStep(adding: more) }
    }
  }
}

/// The state of a `sample` subscription, as data: each transition runs under the operator's lock
/// and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --receive(_:)--> active      (replace the latest value)
/// active --tick()--> active           (the latest value goes to the outlet if demand allows)
/// active --receive(completion:)--> completing (a failure drops the latest value)
/// completing --finish(_:)--> finishing (the latest value, if demand allows, then the completion)
/// active / completing / finishing --completion delivered / cancel()--> terminal
/// ```
enum SampleState<Downstream: Subscriber>: OutletState {
  typealias Value = Downstream.Input
  typealias Failure = Downstream.Failure

  /// Before the upstream's subscription arrives.
  case awaitingSubscription(Downstream)
  /// Subscribed.
  case active(Active)
  /// The upstream completed; the completion is scheduled.
  case completing(Completing)
  /// The completion is in the outlet's queue.
  case finishing(DeliveryOutlet<Downstream>)
  /// Completed or cancelled: everything is released.
  case terminal

  /// What exists while subscribed.
  struct Active {
    /// The subscriber's end.
    var outlet: DeliveryOutlet<Downstream>
    /// The upstream's subscription.
    var upstream: any Subscription
    /// The value the next tick samples.
    var latest: Value?
    /// The sampling timer, once started.
    var timer: (any Cancellable)?
  }

  /// What exists between the upstream's completion and its scheduled delivery.
  struct Completing {
    /// The subscriber's end.
    var outlet: DeliveryOutlet<Downstream>
    /// The value flushed before the completion.
    var latest: Value?
  }

  /// What the upstream's completion lets go of.
  struct Completed {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription (released: it completed).
    let upstream: any Subscription
    /// The latest value, dropped by a failure.
    let dropped: Value?
  }

  /// What the scheduled completion hands out.
  struct Finished {
    /// Whether the caller claimed the drain and must run it.
    var claimed = false
    /// The latest value, dropped for want of demand; released after the lock.
    var dropped: Value?
  }

  /// What `cancel()` lets go of.
  struct Cancelled {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription to cancel (`nil` once it completed).
    let upstream: (any Subscription)?
    /// The latest value.
    let latest: Value?
    /// The subscriber and the values it had not yet received.
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

  /// Keeps the sampling timer; `false` when no longer active (cancel it).
  mutating func install(_ timer: any Cancellable) -> Bool {
    guard case .active(var active) = self else { return false }
    self = .terminal
    active.timer = timer
    self = .active(active)
    return true
  }

  /// Makes `value` the latest; returns the value it replaced, to release after the lock.
  mutating func receive(_ value: Value) -> Value? {
    guard case .active(var active) = self else { return nil }
    self = .terminal
    defer { self = .active(active) }
    let replaced = active.latest
    active.latest = value
    return replaced
  }

  /// A tick: the latest value goes to the outlet if the subscriber has demand for it. `true`:
  /// the caller claimed the drain.
  mutating func tick() -> Bool {
    guard case .active(var active) = self, active.latest != nil else { return false }
    self = .terminal
    defer { self = .active(active) }
    return Self.flush(&active.latest, to: &active.outlet)
  }

  /// The upstream completed; `nil` when not active.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Completed? {
    guard case .active(let active) = self else { return nil }
    let dropped: Value? = if case .failure = completion { active.latest } else { nil }
    self = .completing(
      Completing(outlet: active.outlet, latest: dropped == nil ? active.latest : nil)
    )
    return Completed(timer: active.timer, upstream: active.upstream, dropped: dropped)
  }

  /// The scheduled completion runs: the latest value (if demand allows), then the completion,
  /// go to the outlet.
  mutating func finish(_ completion: Subscribers.Completion<Failure>) -> Finished {
    guard case .completing(var completing) = self else { return Finished() }
    self = .terminal
    var finished = Finished()
    finished.claimed = Self.flush(&completing.latest, to: &completing.outlet)
    finished.dropped = completing.latest.take()
    if completing.outlet.queue.finish(completion) { finished.claimed = true }
    self = .finishing(completing.outlet)
    return finished
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
    case .completing(var completing):
      self = .terminal
      defer { self = .completing(completing) }
      return body(&completing.outlet)
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
        latest: active.latest,
        outlet: active.outlet.cancel()
      )
    case .completing(var completing):
      self = .terminal
      return Cancelled(
        timer: nil,
        upstream: nil,
        latest: completing.latest,
        outlet: completing.outlet.cancel()
      )
    case .finishing(var outlet):
      self = .terminal
      return Cancelled(timer: nil, upstream: nil, latest: nil, outlet: outlet.cancel())
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Moves `latest` into `outlet` if the subscriber has demand beyond the values already there;
  /// `true`: the caller claimed the drain.
  private static func flush(
    _ latest: inout Value?,
    to outlet: inout DeliveryOutlet<Downstream>
  ) -> Bool {
    guard outlet.queue.demand > .max(outlet.queue.values.count), let value = latest.take() else {
      return false
    }
    return outlet.queue.enqueue(value)
  }
}
