public import StreamCore

extension Publisher {
  /// Publishes the latest value once the upstream has been quiet for `dueTime`.
  ///
  /// ```swift
  /// searchText
  ///   .debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
  ///   .sink { runSearch($0) }
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. Each value restarts the timer; when it runs out, the
  /// latest value goes downstream if the subscriber has demand, and is dropped otherwise. When
  /// the upstream completes, a value still waiting for its quiet period is dropped, as in
  /// Combine, and the completion is delivered on `scheduler`.
  ///
  /// <!-- marbles:debounce -->
  /// Marble diagram of `debounce(for: 3, scheduler:)`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -ab----c-d----|
  /// output  -----b------d-|
  /// ```
  ///
  /// ![Marble diagram of debounce(for: 3, scheduler:)](marble-debounce)
  /// <!-- /marbles:debounce -->
  ///
  /// > Thread safety: Upstream may send from any thread. Values and the completion are delivered
  /// > on `scheduler`, one at a time. `request(_:)` and `cancel()` are safe from any thread;
  /// > nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - dueTime: How long the upstream must stay quiet before the latest value is sent.
  ///   - scheduler: Runs the timer and delivers.
  ///   - options: Options passed to `scheduler`.
  /// - Returns: A publisher that debounces its upstream.
  public func debounce<S: Scheduler>(
    for dueTime: S.SchedulerTimeType.Stride,
    scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.Debounce<Self, S> {
    Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
  }
}

extension Publishers {
  /// A publisher that sends the latest value once its upstream has been quiet for a while.
  ///
  /// ```swift
  /// let settled = Publishers.Debounce(
  ///   upstream: edits, dueTime: .milliseconds(300), scheduler: queue, options: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/debounce(for:scheduler:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are debounced.
    public let upstream: Upstream

    /// How long the upstream must stay quiet.
    public let dueTime: Context.SchedulerTimeType.Stride

    /// The scheduler that runs the timer and delivers.
    public let scheduler: Context

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a debouncing publisher.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are debounced.
    ///   - dueTime: How long the upstream must stay quiet.
    ///   - scheduler: The scheduler that runs the timer and delivers.
    ///   - options: Options passed to the scheduler.
    public init(
      upstream: Upstream,
      dueTime: Context.SchedulerTimeType.Stride,
      scheduler: Context,
      options: Context.SchedulerOptions?
    ) {
      self.upstream = upstream
      self.dueTime = dueTime
      self.scheduler = scheduler
      self.options = options
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, publisher: self))
    }
  }
}

extension Publishers.Debounce: Sendable
where
  Context: Sendable,
  Upstream: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

extension Publishers.Debounce {
  /// Decides under `lock`, in ``DebounceState``, and acts after it: starts and cancels timers,
  /// hands values to the drain. Timers and the scheduled completion capture the inner strongly,
  /// as Combine's do; a timer is cancelled when it is replaced, fires, or the subscription ends.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the thread that claimed the outlet's drain.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    private var state: DebounceState<Downstream>
    private let dueTime: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, publisher: Publishers.Debounce<Upstream, Context>) {
      state = .awaitingSubscription(downstream, DebounceLive())
      dueTime = publisher.dueTime
      scheduler = publisher.scheduler
      options = publisher.options
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      subscription.request(.unlimited)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard let restart = lock.withLock({ state.receive(input) }) else { return .none }
      restart.superseded?.cancel()
      let generation = restart.generation
      // Captured strongly, as in Combine: a subscriber that holds nothing still gets the value.
      let timer = scheduler.startTimer(every: dueTime, options: options) {
        self.timerFired(generation)
      }
      if !lock.withLock({ state.install(timer, for: generation) }) { timer.cancel() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let released = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      released.timer?.cancel()
      // Without the options, as Combine schedules it (OpenCombine's `DebounceTests`).
      scheduler.schedule { self.finish() }
    }

    func request(_ demand: Subscribers.Demand) {
      guard demand > .none else { return }  // Combine ignores request(.none) here
      if lock.withLock({ state.requestWhileActive(demand) }) { drain() }
    }

    func cancel() {
      guard let released = lock.withLock({ state.cancel() }) else { return }
      released.live?.timer.timer?.cancel()
      released.upstream?.cancel()
    }

    private func timerFired(_ generation: UInt64) {
      let fired = lock.withLock { state.timerFired(generation) }
      fired.timer?.cancel()
      if fired.claimed { drain() }
    }

    private func finish() {
      if lock.withLock({ state.finishCompleting().claimed }) { drain() }
    }

    private func drain() {
      DeliveryOutlet.drain(lock) { more in state.nextStep(adding: more) }
    }

    var description: String { "Debounce" }

    /// As Combine's: the `downstream`, its `downstreamDemand` not yet met and the pending
    /// `currentValue`; after the end, what the subscription let go of reads `nil`.
    var customMirror: Mirror {
      let snapshot = lock.withLock { () -> (Any, Subscribers.Demand, Output?) in
        let (downstream, demand, live) = state.snapshot
        return (downstream.map { $0 as Any } ?? (Downstream?.none as Any), demand, live?.pending)
      }
      return Mirror(
        self,
        children: [
          "downstream": snapshot.0, "downstreamDemand": snapshot.1,
          "currentValue": snapshot.2 as Any,
        ]
      )
    }

    var playgroundDescription: Any { description }
  }
}

/// What `debounce` keeps while subscribed, in a ``TimedState``: the latest value, waiting for
/// the upstream to be quiet, and the quiet-period timer.
///
/// ```
/// active --receive(_:)--> active      (replace pending, restart the timer)
/// active --timerFired(current)--> active (pending is queued if there is demand, else dropped)
/// active --receive(completion:)--> completing (pending dropped; the completion is scheduled)
/// completing --finishCompleting()--> finishing (the completion is queued after the due value)
/// ```
///
/// At most one value waits in the outlet's queue (for the draining thread): a newer due value
/// replaces it, since only the latest one counts.
struct DebounceLive<Value> {
  /// The latest value, waiting for the upstream to be quiet.
  var pending: Value?
  /// The quiet-period timer.
  var timer = TimerSlot()

  /// What a timer restart hands out.
  struct Restart {
    /// The generation the new timer is started for.
    let generation: UInt64
    /// The timer to cancel.
    let superseded: (any Cancellable)?
    /// The pending value the new one replaced, released after the lock.
    let replaced: Value?
  }

  /// What a firing timer hands out.
  struct Fired {
    /// The timer to cancel (the quiet period is over), if the firing was current.
    var timer: (any Cancellable)?
    /// A value that was dropped (no demand) or superseded, released after the lock.
    var dropped: Value?
    /// Whether the caller claimed the drain and must run it.
    var claimed = false
  }

  /// What the upstream's completion lets go of.
  struct Completed {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription (released: it completed).
    let upstream: any Subscription
    /// The pending value, dropped as in Combine.
    let pending: Value?
  }
}

/// The state of a `debounce` subscription.
typealias DebounceState<Downstream: Subscriber> = TimedState<
  Downstream, DebounceLive<Downstream.Input>
>

extension TimedState where Live == DebounceLive<Downstream.Input> {
  /// Makes `value` the pending one and restarts the timer; `nil` when not active.
  mutating func receive(_ value: Value) -> Live.Restart? {
    updateActive(otherwise: nil) { active in
      let replaced = active.live.pending
      active.live.pending = value
      let (generation, superseded) = active.live.timer.restart()
      return Live.Restart(generation: generation, superseded: superseded, replaced: replaced)
    }
  }

  /// Adds `demand` while the upstream has not completed; `true` when the caller claimed the
  /// drain. Once it completed, Combine ignores requests: no value can come any more, so only
  /// the mirror's `downstreamDemand` would show them.
  mutating func requestWhileActive(_ demand: Subscribers.Demand) -> Bool {
    updateActive(otherwise: false) { $0.outlet.queue.request(demand) }
  }

  /// Keeps the timer started for `generation`; `false`: it is stale, cancel it.
  mutating func install(_ timer: any Cancellable, for generation: UInt64) -> Bool {
    updateActive(otherwise: false) { active in
      active.live.pending != nil && active.live.timer.install(timer, for: generation)
    }
  }

  /// The quiet period started for `generation` is over: the pending value goes to the outlet if
  /// the subscriber has demand.
  mutating func timerFired(_ generation: UInt64) -> Live.Fired {
    updateActive(otherwise: Live.Fired()) { active in
      guard active.live.timer.isCurrent(generation), let value = active.live.pending.take()
      else { return Live.Fired() }
      var fired = Live.Fired(timer: active.live.timer.take())
      // A value still waiting for the draining thread is superseded: only the latest counts.
      fired.dropped = active.outlet.queue.values.popLast()
      if active.outlet.queue.demand > .none {
        fired.claimed = active.outlet.queue.enqueue(value)
      } else {
        fired.dropped = value
      }
      return fired
    }
  }

  /// The upstream completed: the pending value is dropped and the timer stopped; the caller
  /// schedules ``finishCompleting()``.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Live.Completed? {
    guard let active = complete(with: completion, keeping: { $0 = Live() }) else { return nil }
    return Live.Completed(
      timer: active.live.timer.timer,
      upstream: active.upstream,
      pending: active.live.pending
    )
  }
}
