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
  /// As Combine's: the timer starts when the upstream's subscription arrives, again at the first
  /// request, and again after each value. When it runs out, the upstream is cancelled and the
  /// stream fails with `customError()`, or finishes if `customError` is `nil`; values still
  /// waiting for the scheduler are dropped. Each value, and the completion, is delivered on
  /// `scheduler` by an action of its own, in order (nothing times out while the subscriber is
  /// still receiving its subscription: the timeout waits for it);
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
  /// As Combine's `timeout`: a `receive(on:)` with a timer. Each value and the completion is
  /// scheduled as an action of its own, which delivers the oldest queued event through `gate`
  /// (``ReceiveOnState`` keeps the queue and the phase). The timer starts when the upstream's
  /// subscription arrives, again at the first request and after each value; it and the actions
  /// capture the inner strongly, as Combine's do, so a subscriber that holds nothing still
  /// hears the timeout. A timeout that fires while the subscriber is in `receive(subscription:)`
  /// waits for the gate, so nothing reaches the subscriber before its subscription.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, holding
  // `gate`; `customError` is called once, outside the lock.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, ScheduledDelivery, CustomStringConvertible, ChildlessReflection,
    CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output
    typealias State = ReceiveOnState<Downstream>

    let lock = Lock()
    let gate = DeliveryGate()
    var state: State
    /// The timeout timer, restarted by generation.
    private var timer = TimerSlot()
    /// Whether the subscriber has requested (the first request restarts the timer).
    private var requested = false
    /// Whether the timer ran out (the subscription then ends by itself).
    private var didTimeOut = false
    private var customError: (() -> Failure)?
    private let interval: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, publisher: Publishers.Timeout<Upstream, Context>) {
      state = ReceiveOnState(downstream: downstream)
      customError = publisher.customError
      interval = publisher.interval
      scheduler = publisher.scheduler
      options = publisher.options
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      restartTimer()
      gate.pass(as: .current) { downstream.receive(subscription: self) }
      lock.withLock { state.subscribing = false }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard lock.withLock({ state.receive(input) }) else { return .none }
      restartTimer()
      scheduler.schedule(options: options) { self.scheduledAction() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let stopped = lock.withLock { () -> (any Cancellable)?? in
        guard state.receive(completion: completion) else { return nil }
        return .some(timer.take())
      }
      guard let stopped else { return }
      stopped?.cancel()
      scheduler.schedule(options: options) { self.scheduledAction() }
    }

    func request(_ demand: Subscribers.Demand) {
      let (upstream, first) = lock.withLock { () -> ((any Subscription)?, Bool) in
        guard let upstream = state.returnedDemandTarget, !didTimeOut else { return (nil, false) }
        defer { requested = true }
        return (upstream, !requested)
      }
      if first { restartTimer() }
      upstream?.request(demand)
    }

    func cancel() {
      var released: (State.Phase, RingBuffer<State.Event>)?
      let (upstream, stopped) = lock.withLock {
        () -> ((any Subscription)?, (any Cancellable)?) in
        guard !didTimeOut else { return (nil, nil) }
        return (state.cancel(endsCompleting: true, released: &released), timer.take())
      }
      stopped?.cancel()
      upstream?.cancel()
      _ = released  // the subscriber and queued events, let go after the lock
    }

    /// Starts a new timer, cancelling the one it replaces; none once the upstream's completion
    /// arrived (a first request after it starts nothing that would hold the subscription).
    private func restartTimer() {
      let restart = lock.withLock { () -> (UInt64, (any Cancellable)?)? in
        guard case .subscribed = state.phase else { return nil }
        return timer.restart()
      }
      guard let (generation, superseded) = restart else { return }
      superseded?.cancel()
      let started = scheduler.startTimer(every: interval, options: options) {
        self.timedOut(generation)
      }
      let installed = lock.withLock {
        guard case .subscribed = state.phase else { return false }
        return timer.install(started, for: generation)
      }
      if !installed { started.cancel() }
    }

    private func timedOut(_ generation: UInt64) {
      typealias TimedOut = (
        upstream: any Subscription, dropped: RingBuffer<State.Event>, timer: (any Cancellable)?,
        makeError: (() -> Failure)?
      )
      let timedOut = lock.withLock { () -> TimedOut? in
        guard timer.isCurrent(generation), let ended = state.timeOut() else { return nil }
        didTimeOut = true
        return (ended.upstream, ended.dropped, timer.take(), customError.take())
      }
      guard let timedOut else { return }
      timedOut.timer?.cancel()
      timedOut.upstream.cancel()
      let makeError = timedOut.makeError
      let completion: Subscribers.Completion<Failure> =
        makeError.map { .failure($0()) } ?? .finished
      // Delivered here, on the scheduler, as in Combine; an action still scheduled for a dropped
      // value finds nothing to deliver.
      if lock.withLock({ state.queueTimeout(completion) }) { scheduledAction() }
    }

    var description: String { "Timeout" }

    var playgroundDescription: Any { description }
  }
}
