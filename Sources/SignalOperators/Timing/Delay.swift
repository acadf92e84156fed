public import StreamCore

extension Publisher {
  /// Delivers each value and the completion `interval` later, on `scheduler`.
  ///
  /// ```swift
  /// taps
  ///   .delay(for: .milliseconds(300), scheduler: DispatchQueue.main)
  ///   .sink { showRipple(at: $0) }
  /// ```
  ///
  /// Each event is scheduled for `interval` after it arrived, and events go downstream in the
  /// order they arrived. Requests pass straight to the upstream, and demand the subscriber returns
  /// from `receive(_:)` is requested from the upstream.
  ///
  /// <!-- marbles:delay -->
  /// Marble diagram of `delay(for: 3, scheduler:)`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-b--c|
  /// output  ----a-b--c|
  /// ```
  ///
  /// ![Marble diagram of delay(for: 3, scheduler:)](marble-delay)
  /// <!-- /marbles:delay -->
  ///
  /// > Thread safety: Upstream may send from any thread. Values and the completion are delivered
  /// > on `scheduler`, one at a time. `request(_:)` and `cancel()` are safe from any thread;
  /// > nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - interval: How long to hold each event.
  ///   - tolerance: How late the scheduler may deliver; its minimum tolerance if `nil`.
  ///   - scheduler: The scheduler to deliver on.
  ///   - options: Options passed to `scheduler`.
  /// - Returns: A publisher that delays its upstream's events.
  public func delay<S: Scheduler>(
    for interval: S.SchedulerTimeType.Stride,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.Delay<Self, S> {
    Publishers.Delay(
      upstream: self,
      interval: interval,
      tolerance: tolerance ?? scheduler.minimumTolerance,
      scheduler: scheduler,
      options: options
    )
  }
}

extension Publishers {
  /// A publisher that delivers its upstream's events after a fixed interval, on a scheduler.
  ///
  /// ```swift
  /// let later = Publishers.Delay(
  ///   upstream: values, interval: .seconds(1), tolerance: 0, scheduler: queue)
  /// ```
  ///
  /// See ``StreamCore/Publisher/delay(for:tolerance:scheduler:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose events are delayed.
    public let upstream: Upstream

    /// How long each event is held.
    public let interval: Context.SchedulerTimeType.Stride

    /// How late the scheduler may deliver.
    public let tolerance: Context.SchedulerTimeType.Stride

    /// The scheduler that delivers the events.
    public let scheduler: Context

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that delays `upstream`'s events by `interval`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose events are delayed.
    ///   - interval: How long to hold each event.
    ///   - tolerance: How late the scheduler may deliver.
    ///   - scheduler: The scheduler to deliver on.
    ///   - options: Options passed to the scheduler.
    public init(
      upstream: Upstream,
      interval: Context.SchedulerTimeType.Stride,
      tolerance: Context.SchedulerTimeType.Stride,
      scheduler: Context,
      options: Context.SchedulerOptions? = nil
    ) {
      self.upstream = upstream
      self.interval = interval
      self.tolerance = tolerance
      self.scheduler = scheduler
      self.options = options
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, publisher: self))
    }
  }
}

extension Publishers.Delay: Sendable
where
  Context: Sendable,
  Upstream: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

extension Publishers.Delay {
  /// Decides under `lock`, in ``DelayState``, and acts after it: each event schedules one action
  /// `interval` later, which makes the oldest waiting event due; the thread that claims the
  /// outlet's drain delivers due events in order, so order holds even if the scheduler reorders
  /// actions. An action scheduled before `cancel()` keeps the inner alive until it runs, but by
  /// then everything else has been released.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the thread that claimed the outlet's drain.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    private var state: DelayState<Downstream>
    private let interval: Context.SchedulerTimeType.Stride
    private let tolerance: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, publisher: Publishers.Delay<Upstream, Context>) {
      state = .awaitingSubscription(downstream, RingBuffer())
      interval = publisher.interval
      tolerance = publisher.tolerance
      scheduler = publisher.scheduler
      options = publisher.options
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      if lock.withLock({ state.receive(input) }) { scheduleOne() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let upstream = lock.withLock({ state.receive(completion: completion) }) else { return }
      _ = upstream  // released after the lock
      scheduleOne()
    }

    func request(_ demand: Subscribers.Demand) {
      lock.withLock { state.upstream }?.request(demand)
    }

    func cancel() {
      lock.withLock { state.cancel() }?.upstream?.cancel()
    }

    private func scheduleOne() {
      scheduler.schedule(
        after: scheduler.now.advanced(by: interval),
        tolerance: tolerance,
        options: options
      ) { self.fire() }
    }

    /// Makes the oldest waiting event due and delivers what is due, unless another thread is.
    private func fire() {
      guard lock.withLock({ state.fire() }) else { return }
      DeliveryOutlet.drain(lock) { _ in
        state.nextStep(adding: .none)
      } forward: { more in
        lock.withLock { state.upstream }?.request(more)
      }
    }

    var description: String { "Delay" }

    var playgroundDescription: Any { description }
  }
}

/// The state of a `delay` subscription: a ``TimedState`` whose live state is the values
/// whose scheduled action hasn't run yet, oldest first.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active (the outlet's demand is unlimited)
/// active --receive(_:)--> active (the value waits; the caller schedules one action)
/// active --receive(completion:)--> completing (the completion waits after the values)
/// active / completing --fire()--> the oldest waiting value goes to the outlet
/// completing --fire() with no value waiting--> finishing (the completion goes to the outlet)
/// ```
///
/// The outlet's demand is unlimited: requests go straight to the upstream, which keeps to them.
typealias DelayState<Downstream: Subscriber> = TimedState<Downstream, RingBuffer<Downstream.Input>>

extension TimedState where Live == RingBuffer<Downstream.Input> {
  /// Stores the upstream's subscription with an unlimited outlet; see
  /// ``TimedState/receive(subscription:outletDemand:)``.
  mutating func receive(subscription: any Subscription) -> Downstream? {
    receive(subscription: subscription, outletDemand: .unlimited)
  }

  /// Keeps `value` until its action runs; `true`: the caller schedules that action.
  mutating func receive(_ value: Value) -> Bool {
    updateActive(otherwise: false) { active in
      active.live.append(value)
      return true
    }
  }

  /// Keeps the completion after the waiting values; returns the upstream's subscription to
  /// release after the lock (the caller schedules one more action), or `nil` when not active.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> (any Subscription)? {
    complete(with: completion)?.upstream
  }

  /// A scheduled action ran: the oldest waiting event goes to the outlet. `true`: the caller
  /// claimed the drain.
  mutating func fire() -> Bool {
    switch self {
    case .active:
      return updateActive(otherwise: false) { active in
        guard let value = active.live.popFirst() else {
          preconditionFailure("Delay: an action ran with no value waiting")
        }
        return active.outlet.queue.enqueue(value)
      }
    case .completing:
      let value = updateCompleting(otherwise: nil) { completing -> Bool? in
        guard let value = completing.live.popFirst() else { return nil }
        return completing.outlet.queue.enqueue(value)
      }
      return value ?? finishCompleting().claimed
    case .awaitingSubscription, .finishing, .terminal:
      return false
    }
  }
}
