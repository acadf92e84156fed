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
        let (downstream, _, live) = state.snapshot
        return (downstream, state.upstream, live?.latest)
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
      state = .awaitingSubscription(downstream, SampleLive())
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
      scheduler.schedule(options: options) { self.finish() }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      if lock.withLock({ state.request(demand) }) { drain() }
    }

    func cancel() {
      guard let cancelled = lock.withLock({ state.cancel() }) else { return }
      cancelled.live?.timer?.cancel()
      cancelled.upstream?.cancel()
    }

    /// Runs on the scheduler at every tick: emits the latest value if there is demand.
    private func tick() {
      if lock.withLock({ state.tick() }) { drain() }
    }

    /// Runs on the scheduler after upstream completed: flushes the latest value, then ends.
    private func finish() {
      let finished = lock.withLock { state.finishSampling() }
      _ = finished.dropped  // released after the lock
      if finished.claimed { drain() }
    }

    private func drain() {
      DeliveryOutlet.drain(lock) { more in state.nextStep(adding: more) }
    }
  }
}

/// What `sample` keeps while subscribed, in a ``TimedState``: the value the next tick samples
/// and the sampling timer.
///
/// ```
/// active --receive(_:)--> active      (replace the latest value)
/// active --tick()--> active           (the latest value goes to the outlet if demand allows)
/// active --receive(completion:)--> completing (a failure drops the latest value)
/// completing --finishSampling()--> finishing (the latest value, if demand allows, then the
///                                              completion)
/// ```
struct SampleLive<Value> {
  /// The value the next tick samples.
  var latest: Value?
  /// The sampling timer, once started.
  var timer: (any Cancellable)?

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
}

/// The state of a `sample` subscription.
typealias SampleState<Downstream: Subscriber> = TimedState<Downstream, SampleLive<Downstream.Input>>

extension TimedState where Live == SampleLive<Downstream.Input> {
  /// Keeps the sampling timer; `false` when no longer active (cancel it).
  mutating func install(_ timer: any Cancellable) -> Bool {
    updateActive(otherwise: false) { active in
      active.live.timer = timer
      return true
    }
  }

  /// Makes `value` the latest; returns the value it replaced, to release after the lock.
  mutating func receive(_ value: Value) -> Value? {
    updateActive(otherwise: nil) { active in
      let replaced = active.live.latest
      active.live.latest = value
      return replaced
    }
  }

  /// A tick: the latest value goes to the outlet if the subscriber has demand for it. `true`:
  /// the caller claimed the drain.
  mutating func tick() -> Bool {
    updateActive(otherwise: false) { active in Self.flush(&active.live.latest, to: &active.outlet) }
  }

  /// The upstream completed; `nil` when not active. The caller schedules ``finishSampling()``.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Live.Completed? {
    var dropped: Value?
    let completed = complete(with: completion) { live in
      live.timer = nil  // handed out below, to be cancelled
      if case .failure = completion { dropped = live.latest.take() }
    }
    guard let completed else { return nil }
    return Live.Completed(
      timer: completed.live.timer,
      upstream: completed.upstream,
      dropped: dropped
    )
  }

  /// The scheduled completion runs: the latest value (if demand allows), then the completion,
  /// go to the outlet.
  mutating func finishSampling() -> Live.Finished {
    var finished = Live.Finished()
    updateCompleting(otherwise: ()) { completing in
      finished.claimed = Self.flush(&completing.live.latest, to: &completing.outlet)
    }
    let queued = finishCompleting()
    finished.dropped = queued.live?.latest
    if queued.claimed { finished.claimed = true }
    return finished
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
