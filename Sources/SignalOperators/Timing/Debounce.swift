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
  /// hands values to the drain. Timers capture the inner weakly; the scheduled completion
  /// captures it strongly so that it is delivered.
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
      state = .awaitingSubscription(downstream)
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
      let timer = scheduler.startTimer(every: dueTime, options: options) { [weak self] in
        self?.timerFired(generation)
      }
      if !lock.withLock({ state.install(timer, for: generation) }) { timer.cancel() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let released = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      released.timer?.cancel()
      scheduler.schedule(options: options) { self.finish(completion) }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      if lock.withLock({ state.request(demand) }) { drain() }
    }

    func cancel() {
      guard let released = lock.withLock({ state.cancel() }) else { return }
      released.timer?.cancel()
      released.upstream?.cancel()
    }

    private func timerFired(_ generation: UInt64) {
      let fired = lock.withLock { state.timerFired(generation) }
      fired.timer?.cancel()
      if fired.claimed { drain() }
    }

    private func finish(_ completion: Subscribers.Completion<Failure>) {
      if lock.withLock({ state.finish(completion) }) { drain() }
    }

    private func drain() {
      DeliveryOutlet.drain(lock) { more in state.nextStep(adding: more) }
    }

    var description: String { "Debounce" }

    /// As Combine's: the `downstream`, its `downstreamDemand` not yet met and the pending
    /// `currentValue`; after the end, what the subscription let go of reads `nil`.
    var customMirror: Mirror {
      let snapshot = lock.withLock { () -> (Any, Subscribers.Demand, Output?) in
        switch state {
        case .awaitingSubscription(let downstream): (downstream, .none, nil)
        case .active(let active):
          (active.outlet.downstream, active.outlet.queue.demand, active.pending)
        case .completing(let outlet): (outlet.downstream, outlet.queue.demand, nil)
        case .terminal: (Downstream?.none as Any, .none, nil)
        }
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

/// The state of a `debounce` subscription, as data: each transition runs under the operator's
/// lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --receive(_:)--> active      (replace pending, restart the timer)
/// active --timerFired(current)--> active (pending is queued if there is demand, else dropped)
/// active --receive(completion:)--> completing (pending dropped; the completion is scheduled)
/// completing --finish(_:)--> completing (the completion is queued after the queued value)
/// active / completing --completion delivered / cancel()--> terminal
/// ```
///
/// At most one value waits in the outlet's queue (for the draining thread): a newer due value
/// replaces it, since only the latest one counts.
enum DebounceState<Downstream: Subscriber>: OutletState {
  typealias Value = Downstream.Input
  typealias Failure = Downstream.Failure

  /// Before the upstream's subscription arrives.
  case awaitingSubscription(Downstream)
  /// Subscribed: values restart the timer.
  case active(Active)
  /// The upstream completed; the completion is scheduled, then queued after any due value.
  case completing(DeliveryOutlet<Downstream>)
  /// Completed or cancelled: everything is released.
  case terminal

  /// What exists while subscribed.
  struct Active {
    /// The subscriber's end.
    var outlet: DeliveryOutlet<Downstream>
    /// The upstream's subscription.
    var upstream: any Subscription
    /// The latest value, waiting for the upstream to be quiet.
    var pending: Value?
    /// The quiet-period timer.
    var timer = TimerSlot()
  }

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

  /// What `cancel()` lets go of.
  struct Cancelled {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription to cancel (`nil` once it completed).
    let upstream: (any Subscription)?
    /// The pending value.
    let pending: Value?
    /// The subscriber and the values it had not yet received.
    let outlet: DeliveryOutlet<Downstream>.Released
  }

  /// Stores the upstream's subscription; returns the subscriber to hand this subscription to,
  /// or `nil` when the subscription must be cancelled (a second one, or after `cancel()`).
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = self else { return nil }
    self = .active(Active(outlet: DeliveryOutlet(downstream), upstream: subscription))
    return downstream
  }

  /// Makes `value` the pending one and restarts the timer; `nil` when not active.
  mutating func receive(_ value: Value) -> Restart? {
    guard case .active(var active) = self else { return nil }
    self = .terminal
    defer { self = .active(active) }
    let replaced = active.pending
    active.pending = value
    let (generation, superseded) = active.timer.restart()
    return Restart(generation: generation, superseded: superseded, replaced: replaced)
  }

  /// Keeps the timer started for `generation`; `false`: it is stale, cancel it.
  mutating func install(_ timer: any Cancellable, for generation: UInt64) -> Bool {
    guard case .active(var active) = self, active.pending != nil else { return false }
    self = .terminal
    defer { self = .active(active) }
    return active.timer.install(timer, for: generation)
  }

  /// The quiet period started for `generation` is over: the pending value goes to the outlet if
  /// the subscriber has demand.
  mutating func timerFired(_ generation: UInt64) -> Fired {
    guard case .active(var active) = self, active.timer.isCurrent(generation),
      let value = active.pending
    else { return Fired() }
    self = .terminal
    defer { self = .active(active) }
    active.pending = nil
    var fired = Fired(timer: active.timer.take())
    // A value still waiting for the draining thread is superseded: only the latest counts.
    fired.dropped = active.outlet.queue.values.popLast()
    if active.outlet.queue.demand > .none {
      fired.claimed = active.outlet.queue.enqueue(value)
    } else {
      fired.dropped = value
    }
    return fired
  }

  /// The upstream completed: the pending value is dropped and the timer stopped; the caller
  /// schedules ``finish(_:)``.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Completed? {
    guard case .active(var active) = self else { return nil }
    self = .completing(active.outlet)
    return Completed(timer: active.timer.take(), upstream: active.upstream, pending: active.pending)
  }

  /// The scheduled completion runs: it is queued after any due value. `true`: the caller claimed
  /// the drain.
  mutating func finish(_ completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .completing(var outlet) = self else { return false }
    self = .terminal
    defer { self = .completing(outlet) }
    return outlet.queue.finish(completion)
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
    case .completing(var outlet):
      self = .terminal
      defer { self = .completing(outlet) }
      return body(&outlet)
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Becomes terminal.
  mutating func end() { self = .terminal }

  /// Ends everything; `nil` when there is nothing to end (before the subscription, the
  /// subscriber can't cancel).
  mutating func cancel() -> Cancelled? {
    switch self {
    case .active(var active):
      self = .terminal
      return Cancelled(
        timer: active.timer.take(),
        upstream: active.upstream,
        pending: active.pending,
        outlet: active.outlet.cancel()
      )
    case .completing(var outlet):
      self = .terminal
      return Cancelled(timer: nil, upstream: nil, pending: nil, outlet: outlet.cancel())
    case .awaitingSubscription, .terminal:
      return nil
    }
  }
}
