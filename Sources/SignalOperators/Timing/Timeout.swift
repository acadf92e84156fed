public import StreamCore

extension Publisher {
  /// Ends the stream if the upstream sends nothing for `interval`.
  ///
  /// ```swift
  /// response
  ///   .timeout(.seconds(5), scheduler: DispatchQueue.main) { NetworkError.timedOut }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// The timer starts at subscription, once the subscriber's `receive(subscription:)` has
  /// returned (so nothing times out before the subscriber has its subscription), starts again at
  /// the first request (as in Combine), and again after each value. When it runs out, the upstream is cancelled and the stream fails
  /// with `customError()`, or finishes if `customError` is `nil`; values still waiting for the
  /// scheduler are dropped. Values and the completion are delivered on `scheduler`, in order;
  /// requests pass straight to the upstream.
  ///
  /// <!-- marbles:timeout -->
  /// Marble diagram of `timeout(4, scheduler:, customError: { Offline() })`, made by running it (a
  /// character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a--b-------c-|
  /// output  -a--b---#
  /// ```
  ///
  /// ![Marble diagram of timeout(4, scheduler:, customError: { Offline() })](marble-timeout)
  /// <!-- /marbles:timeout -->
  ///
  /// <!-- marbles:timeout-finish -->
  /// Marble diagram of `timeout(4, scheduler:)`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a--b-------c-|
  /// output  -a--b---|
  /// ```
  ///
  /// ![Marble diagram of timeout(4, scheduler:)](marble-timeout-finish)
  /// <!-- /marbles:timeout-finish -->
  ///
  /// > Thread safety: Upstream may send from any thread. Values and the completion are delivered
  /// > on `scheduler`, one at a time. `request(_:)` and `cancel()` are safe from any thread;
  /// > nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - interval: How long to wait for the first value, and for each next one.
  ///   - scheduler: Runs the timer and delivers.
  ///   - options: Options passed to `scheduler`.
  ///   - customError: Makes the error to fail with; `nil` finishes instead.
  /// - Returns: A publisher that ends when its upstream is quiet for too long.
  public func timeout<S: Scheduler>(
    _ interval: S.SchedulerTimeType.Stride,
    scheduler: S,
    options: S.SchedulerOptions? = nil,
    customError: (() -> Failure)? = nil
  ) -> Publishers.Timeout<Self, S> {
    Publishers.Timeout(
      upstream: self,
      interval: interval,
      scheduler: scheduler,
      options: options,
      customError: customError
    )
  }
}

extension Publishers {
  /// A publisher that ends when its upstream sends nothing for an interval.
  ///
  /// ```swift
  /// let bounded = Publishers.Timeout(
  ///   upstream: replies, interval: .seconds(5), scheduler: queue, options: nil, customError: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/timeout(_:scheduler:options:customError:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher being watched.
    public let upstream: Upstream

    /// How long to wait for a value.
    public let interval: Context.SchedulerTimeType.Stride

    /// The scheduler that runs the timer and delivers.
    public let scheduler: Context

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Makes the error to fail with on timeout; `nil` finishes instead.
    public let customError: (() -> Upstream.Failure)?

    /// Creates a publisher that ends when `upstream` is quiet for `interval`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher to watch.
    ///   - interval: How long to wait for a value.
    ///   - scheduler: The scheduler that runs the timer and delivers.
    ///   - options: Options passed to the scheduler.
    ///   - customError: Makes the error to fail with; `nil` finishes instead.
    public init(
      upstream: Upstream,
      interval: Context.SchedulerTimeType.Stride,
      scheduler: Context,
      options: Context.SchedulerOptions?,
      customError: (() -> Upstream.Failure)?
    ) {
      self.upstream = upstream
      self.interval = interval
      self.scheduler = scheduler
      self.options = options
      self.customError = customError
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      // As Combine's, which traps here (OpenCombine's `testCrashesWithImmediateScheduler`): on
      // the immediate scheduler the timeout would fire while the subscription is being set up.
      precondition(
        Context.self != ImmediateScheduler.self,
        "Timeout: ImmediateScheduler can't measure a timeout (it runs every action at once)"
      )
      upstream.subscribe(Inner(downstream: subscriber, publisher: self))
    }
  }
}

extension Publishers.Timeout {
  /// Decides under `lock`, in ``TimeoutState``, and acts after it: starts and cancels timers,
  /// and schedules the drain, which delivers what is queued on the scheduler. Timers capture the
  /// inner weakly and carry the generation they were started for; the scheduled drain captures
  /// it strongly.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the thread that claimed the outlet's drain; `customError` is called once, outside the lock.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    private var state: TimeoutState<Downstream>
    private let interval: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, publisher: Publishers.Timeout<Upstream, Context>) {
      state = .awaitingSubscription(downstream, TimeoutLive(customError: publisher.customError))
      interval = publisher.interval
      scheduler = publisher.scheduler
      options = publisher.options
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      // The timer starts only now: started earlier, it could time out (at once on an immediate
      // scheduler, on another thread on a concurrent one) before the downstream had this
      // subscription. Requests and values during `receive(subscription:)` don't start one.
      if let generation = lock.withLock({ state.handOver() }) { startTimer(generation) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard let received = lock.withLock({ state.receive(input) }) else { return .none }
      received.superseded?.cancel()
      if let generation = received.generation { startTimer(generation) }
      if received.claimed { scheduleDrain() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // Queued after the values; the upstream's subscription, the timer and the custom error
      // are released after the lock.
      let finished = lock.withLock { state.finish(completion) }
      finished.live?.timer.timer?.cancel()
      if finished.claimed { scheduleDrain() }
    }

    func request(_ demand: Subscribers.Demand) {
      let requested = lock.withLock { state.request() }
      requested.superseded?.cancel()
      if let generation = requested.generation { startTimer(generation) }
      requested.upstream?.request(demand)
    }

    func cancel() {
      guard let cancelled = lock.withLock({ state.cancel() }) else { return }
      cancelled.live?.timer.timer?.cancel()
      cancelled.upstream?.cancel()
    }

    private func startTimer(_ generation: UInt64) {
      let timer = scheduler.startTimer(every: interval, options: options) { [weak self] in
        self?.timedOut(generation)
      }
      if !lock.withLock({ state.install(timer, for: generation) }) { timer.cancel() }
    }

    private func timedOut(_ generation: UInt64) {
      guard let timedOut = lock.withLock({ state.timedOut(generation) }) else { return }
      timedOut.timer?.cancel()
      timedOut.upstream.cancel()
      _ = timedOut.dropped  // released after the lock
      let completion: Subscribers.Completion<Failure> =
        timedOut.customError.map { .failure($0()) } ?? .finished
      // On the scheduler already: the drain runs here.
      if lock.withLock({ state.finishTimedOut(completion) }) { drain() }
    }

    private func scheduleDrain() {
      scheduler.schedule(options: options) { self.drain() }
    }

    /// Delivers the queued values, then the completion; runs on the scheduler.
    private func drain() {
      DeliveryOutlet.drain(lock) { _ in
        state.nextStep(adding: .none)
      } forward: { more in
        lock.withLock { state.upstream }?.request(more)
      }
    }

    var description: String { "Timeout" }

    var playgroundDescription: Any { description }
  }
}

/// What `timeout` keeps while subscribed, in a ``TimedState``.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active (the timer starts at handOver())
/// active --receive(_:)--> active (queued for the drain, timer restarted)
/// active --receive(completion:)--> finishing (queued after the values)
/// active --timedOut(current)--> finishing (queued values dropped; finishTimedOut(_:) queues
///                                          the completion made outside the lock)
/// ```
///
/// The outlet's demand is unlimited (requests go to the upstream); its drain, once claimed, runs
/// on the scheduler.
struct TimeoutLive<Failure: Error> {
  /// Makes the error to fail with on a timeout; `nil` finishes instead.
  var customError: (() -> Failure)?
  /// The timeout timer.
  var timer = TimerSlot()
  /// Whether the subscriber has requested (the first request restarts the timer).
  var requested = false
  /// Whether the subscriber's `receive(subscription:)` returned; no timer runs before.
  var handedOver = false

  init(customError: (() -> Failure)?) {
    self.customError = customError
  }

  /// What a value or a request hands out.
  struct Restart {
    /// The generation to start a timer for, if one starts.
    var generation: UInt64?
    /// The timer to cancel.
    var superseded: (any Cancellable)?
    /// Whether the caller claimed the drain and must schedule it.
    var claimed = false
    /// The upstream's subscription to pass a request to.
    var upstream: (any Subscription)?
  }

  /// What a timeout hands out.
  struct TimedOut<Value> {
    /// The timer to cancel.
    let timer: (any Cancellable)?
    /// The upstream's subscription to cancel.
    let upstream: any Subscription
    /// Values not yet delivered, dropped.
    let dropped: RingBuffer<Value>
    /// Makes the error to fail with, called after the lock; `nil` finishes.
    let customError: (() -> Failure)?
  }
}

/// The state of a `timeout` subscription.
typealias TimeoutState<Downstream: Subscriber> = TimedState<
  Downstream, TimeoutLive<Downstream.Failure>
>

extension TimedState where Live == TimeoutLive<Downstream.Failure> {
  /// Stores the upstream's subscription with an unlimited outlet; see
  /// ``TimedState/receive(subscription:outletDemand:)``.
  mutating func receive(subscription: any Subscription) -> Downstream? {
    receive(subscription: subscription, outletDemand: .unlimited)
  }

  /// The subscriber has the subscription: returns the generation of the first timer to start.
  mutating func handOver() -> UInt64? {
    updateActive(otherwise: nil) { active in
      active.live.handedOver = true
      return active.live.timer.restart().generation
    }
  }

  /// Queues `value` and restarts the timer; `nil` when not active.
  mutating func receive(_ value: Value) -> Live.Restart? {
    updateActive(otherwise: nil) { active in
      let (generation, superseded) = active.live.timer.restart()
      return Live.Restart(
        generation: active.live.handedOver ? generation : nil,
        superseded: superseded,
        claimed: active.outlet.queue.enqueue(value)
      )
    }
  }

  /// The subscriber requests: the first request restarts the timer (once handed over).
  mutating func request() -> Live.Restart {
    updateActive(otherwise: Live.Restart()) { active in
      var restart = Live.Restart(upstream: active.upstream)
      guard !active.live.requested else { return restart }
      active.live.requested = true
      guard active.live.handedOver else { return restart }  // the timer starts at the handover
      let (generation, superseded) = active.live.timer.restart()
      restart.generation = generation
      restart.superseded = superseded
      return restart
    }
  }

  /// Keeps the timer started for `generation`; `false`: it is stale, cancel it.
  mutating func install(_ timer: any Cancellable, for generation: UInt64) -> Bool {
    updateActive(otherwise: false) { active in active.live.timer.install(timer, for: generation) }
  }

  /// The timer started for `generation` ran out: queued values are dropped; the caller makes the
  /// completion and passes it to ``finishTimedOut(_:)``. `nil` when stale or not active.
  mutating func timedOut(_ generation: UInt64) -> Live.TimedOut<Value>? {
    guard case .active(var active) = self, active.live.timer.isCurrent(generation) else {
      return nil
    }
    self = .terminal
    let dropped = active.outlet.queue.values.takeAll()
    self = .finishing(active.outlet)
    return Live.TimedOut(
      timer: active.live.timer.take(),
      upstream: active.upstream,
      dropped: dropped,
      customError: active.live.customError
    )
  }

  /// Queues the timeout's completion; `true`: the caller claimed the drain.
  mutating func finishTimedOut(_ completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .finishing(var outlet) = self else { return false }
    self = .terminal
    defer { self = .finishing(outlet) }
    return outlet.queue.finish(completion)
  }
}
