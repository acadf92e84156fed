public import StreamCore

extension Publisher {
  /// Publishes at most one value per `interval`: the first or the latest one of each interval.
  ///
  /// ```swift
  /// scrollOffsets
  ///   .throttle(for: .milliseconds(100), scheduler: DispatchQueue.main, latest: true)
  ///   .sink { updateHeader(for: $0) }
  /// ```
  ///
  /// Requests `.unlimited` from the upstream. The first value goes downstream at once (in an
  /// action scheduled now). A value that arrives less than `interval` after the last emission is
  /// held and sent when the interval is over; while one is held, later values replace it if
  /// `latest` is `true` and the subscriber has demand beyond the held value, and are dropped
  /// otherwise (as in Combine: with one value requested at a time, the interval's first value is
  /// sent). Other values that arrive while the subscriber has no demand are dropped. When the upstream completes, a held
  /// value is sent first and the completion right after it; otherwise the completion is scheduled
  /// at once.
  ///
  /// <!-- marbles:throttle-latest -->
  /// Marble diagram of `throttle(for: 4, scheduler:, latest: true)`, made by running it (a
  /// character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -abc----d-e--|
  /// output  -a---c---d---(e|)
  /// ```
  ///
  /// ![Marble diagram of throttle(for: 4, scheduler:, latest: true)](marble-throttle-latest)
  /// <!-- /marbles:throttle-latest -->
  ///
  /// <!-- marbles:throttle-first -->
  /// Marble diagram of `throttle(for: 4, scheduler:, latest: false)`, made by running it (a
  /// character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -abc----d-e--|
  /// output  -a---b---d---(e|)
  /// ```
  ///
  /// ![Marble diagram of throttle(for: 4, scheduler:, latest: false)](marble-throttle-first)
  /// <!-- /marbles:throttle-first -->
  ///
  /// > Thread safety: Upstream may send from any thread. Values and the completion are delivered
  /// > on `scheduler`, one at a time. `request(_:)` and `cancel()` are safe from any thread;
  /// > nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - interval: The least time between two emissions.
  ///   - scheduler: Runs the timer and delivers.
  ///   - latest: Whether to send the latest value of an interval (`true`) or its first (`false`).
  /// - Returns: A publisher that throttles its upstream.
  public func throttle<S: Scheduler>(
    for interval: S.SchedulerTimeType.Stride,
    scheduler: S,
    latest: Bool
  ) -> Publishers.Throttle<Self, S> {
    Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
  }
}

extension Publishers {
  /// A publisher that sends at most one value per interval.
  ///
  /// ```swift
  /// let sampled = Publishers.Throttle(
  ///   upstream: moves, interval: .milliseconds(100), scheduler: queue, latest: true)
  /// ```
  ///
  /// See ``StreamCore/Publisher/throttle(for:scheduler:latest:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are throttled.
    public let upstream: Upstream

    /// The least time between two emissions.
    public let interval: Context.SchedulerTimeType.Stride

    /// The scheduler that runs the timer and delivers.
    public let scheduler: Context

    /// Whether the latest value of an interval is sent, rather than its first.
    public let latest: Bool

    /// Creates a throttling publisher.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are throttled.
    ///   - interval: The least time between two emissions.
    ///   - scheduler: The scheduler that runs the timer and delivers.
    ///   - latest: Whether to send the latest value of an interval rather than its first.
    public init(
      upstream: Upstream,
      interval: Context.SchedulerTimeType.Stride,
      scheduler: Context,
      latest: Bool
    ) {
      self.upstream = upstream
      self.interval = interval
      self.scheduler = scheduler
      self.latest = latest
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, publisher: self))
    }
  }
}

extension Publishers.Throttle: Sendable
where Upstream: Sendable, Context: Sendable, Context.SchedulerTimeType.Stride: Sendable {}

extension Publishers.Throttle {
  /// Decides under `lock`, in ``ThrottleState``, and acts after it: schedules emissions and
  /// runs the drain. Scheduled emissions capture the inner strongly, so a held value and the
  /// completion are delivered even if nothing else holds the inner; after `cancel()` they find
  /// nothing to do.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the thread that claimed the outlet's drain.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output
    typealias Time = Context.SchedulerTimeType

    private let lock = Lock()
    private var state: ThrottleState<Downstream, Time>
    /// Whether the subscriber is being handed its subscription (after the upstream was asked).
    private var handingOver = false
    /// Whether an emission claimed the drain during the handover: the handing thread drains.
    private var drainAfterHandover = false
    private let interval: Time.Stride
    private let scheduler: Context
    private let latest: Bool

    init(downstream: Downstream, publisher: Publishers.Throttle<Upstream, Context>) {
      state = .awaitingSubscription(downstream, ThrottleLive())
      interval = publisher.interval
      scheduler = publisher.scheduler
      latest = publisher.latest
      // Combine reads the clock when the subscription is made, when the upstream's subscription
      // arrives, and at each event while subscribed (OpenCombine's `ThrottleTests` record every
      // call made of the scheduler); the reads here and below keep that pattern.
      _ = scheduler.now
    }

    func receive(subscription: any Subscription) {
      let downstream = lock.withLock { () -> Downstream? in
        let downstream = state.receive(subscription: subscription)
        handingOver = downstream != nil
        return downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      _ = scheduler.now
      // As Combine's, the upstream is asked before the subscriber gets its subscription. What a
      // synchronous upstream sends from inside that request on an immediate scheduler (its
      // completion: values find no demand yet) waits until the subscriber has it, where
      // Combine would deliver it first.
      subscription.request(.unlimited)
      downstream.receive(subscription: self)
      let drains = lock.withLock { () -> Bool in
        handingOver = false
        defer { drainAfterHandover = false }
        return drainAfterHandover
      }
      if drains { drain() }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      // The clock is read for every value while subscribed, with demand or not, as in Combine.
      let (received, now) = lock.withLock { () -> (ThrottleLive<Output, Time>.Received, Time?) in
        guard case .active = state else { return (.drop(input), nil) }
        return (state.receive(input, latest: latest), scheduler.now)
      }
      switch received {
      case .schedule(let lastEmission):
        guard let now else { return .none }  // a schedule comes only from an active state
        let emitAt = lastEmission.map { Swift.max(now, $0.advanced(by: interval)) } ?? now
        if emitAt <= now {
          scheduler.schedule { self.emit() }
        } else {
          scheduler.schedule(after: emitAt) { self.emit() }
        }
      case .drop(let dropped):
        _ = dropped  // released after the lock
      }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let completed = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      _ = scheduler.now
      _ = completed.upstream  // released after the lock
      if completed.scheduleEmission { scheduler.schedule { self.emit() } }
    }

    func request(_ demand: Subscribers.Demand) {
      guard demand > .none else { return }  // Combine ignores request(.none) here
      if lock.withLock({ state.request(demand) }) { drain() }
    }

    func cancel() {
      let (cancelled, released) = lock.withLock {
        () -> (ThrottleState<Downstream, Time>.Cancelled?, ThrottleState<Downstream, Time>?) in
        guard case .awaitingSubscription = state else { return (state.cancel(), nil) }
        // Combine's throttle remembers a cancel that comes before its subscription: the
        // subscription is cancelled when it arrives.
        defer { state.end() }
        return (nil, state)
      }
      cancelled?.upstream?.cancel()
      _ = consume released
    }  // a subscriber let go of before the subscription is released here, after the lock

    /// Runs when a scheduled emission is due.
    private func emit() {
      // Only an emission of a value reads the clock (to time the next one), as in Combine.
      let emitted = lock.withLock { state.emit(at: scheduler.now) }
      _ = emitted.superseded  // released after the lock
      guard emitted.claimed else { return }
      let now = lock.withLock { () -> Bool in
        guard handingOver else { return true }
        drainAfterHandover = true  // the claim passes to the thread handing over
        return false
      }
      if now { drain() }
    }

    private func drain() {
      DeliveryOutlet.drain(lock) { more in state.nextStep(adding: more) }
    }

    var description: String { "Throttle" }

    var playgroundDescription: Any { description }
  }
}

/// What `throttle` keeps while subscribed, in a ``TimedState``: the value waiting for its
/// scheduled emission, and when the last one was emitted.
///
/// ```
/// active --receive(_:) with demand, nothing held--> active (hold it, schedule its emission)
/// active --receive(_:) while holding--> active (replace it if `latest`, else drop)
/// active --emit(at:)--> active (the held value goes to the outlet)
/// active --receive(completion:)--> completing (an emission is scheduled, or already is)
/// completing --emit(at:)--> finishing (the held value, then the completion, go to the outlet)
/// ```
///
/// A held value has its unit of demand reserved: a value is held only while the demand exceeds
/// the values already in the outlet. At most one value waits in the outlet (for the draining
/// thread); a newer emission replaces it and takes over its unit of demand.
struct ThrottleLive<Value, Time> {
  /// The value waiting for its scheduled emission; an emission is scheduled exactly when this
  /// is set (or, once the upstream completed, the one that sends the completion).
  var held: Value?
  /// When the last value was emitted.
  var lastEmission: Time?

  /// What to do after a value arrived.
  enum Received {
    /// Schedule an emission: at once, or an interval after `lastEmission`.
    case schedule(lastEmission: Time?)
    /// Nothing to schedule; release this value (the one that arrived or the one it replaced).
    case drop(Value?)
  }

  /// What an emission hands out.
  struct Emitted {
    /// A value that still waited for the draining thread, replaced; released after the lock.
    var superseded: Value?
    /// Whether the caller claimed the drain and must run it.
    var claimed = false
  }
}

/// The state of a `throttle` subscription.
typealias ThrottleState<Downstream: Subscriber, Time> = TimedState<
  Downstream, ThrottleLive<Downstream.Input, Time>
>

extension TimedState {
  /// A held value goes to the outlet, replacing a value that still waits there for the
  /// draining thread (it takes over that value's unit of demand).
  fileprivate static func emit<Time>(
    _ live: inout ThrottleLive<Value, Time>,
    to outlet: inout DeliveryOutlet<Downstream>,
    into emitted: inout ThrottleLive<Value, Time>.Emitted
  ) {
    guard let value = live.held.take() else { return }
    emitted.superseded = outlet.queue.values.popLast()
    emitted.claimed = outlet.queue.enqueue(value)
  }

  /// A value arrived: hold it (with demand and nothing held), replace the held one (`latest`),
  /// or drop it.
  mutating func receive<Time>(
    _ value: Value,
    latest: Bool
  ) -> ThrottleLive<Value, Time>.Received where Live == ThrottleLive<Value, Time> {
    updateActive(otherwise: .drop(value)) { active in
      if active.live.held != nil {
        // As Combine's: with `latest`, a newer value takes the held one's place only while the
        // subscriber has demand beyond the held value; otherwise it is dropped.
        let queue = active.outlet.queue
        guard latest, queue.demand > .max(queue.values.count + 1) else { return .drop(value) }
        let replaced = active.live.held
        active.live.held = value
        return .drop(replaced)
      }
      let queue = active.outlet.queue
      guard queue.demand > .max(queue.values.count) else { return .drop(value) }
      active.live.held = value
      return .schedule(lastEmission: active.live.lastEmission)
    }
  }

  /// The upstream completed; returns the upstream's subscription to release and whether the
  /// caller schedules the emission that sends the completion (none was). `nil` when not active.
  mutating func receive<Time>(
    completion: Subscribers.Completion<Failure>
  ) -> (upstream: any Subscription, scheduleEmission: Bool)?
  where Live == ThrottleLive<Value, Time> {
    guard let active = complete(with: completion) else { return nil }
    return (active.upstream, active.live.held == nil)
  }

  /// A scheduled emission is due: the held value, and then any completion, go to the outlet.
  mutating func emit<Time>(at now: @autoclosure () -> Time) -> ThrottleLive<Value, Time>.Emitted
  where Live == ThrottleLive<Value, Time> {
    var emitted = ThrottleLive<Value, Time>.Emitted()
    switch self {
    case .active:
      updateActive(otherwise: ()) { active in
        guard active.live.held != nil else { return }
        active.live.lastEmission = now()
        Self.emit(&active.live, to: &active.outlet, into: &emitted)
      }
    case .completing:
      updateCompleting(otherwise: ()) { completing in
        Self.emit(&completing.live, to: &completing.outlet, into: &emitted)
      }
      if finishCompleting().claimed { emitted.claimed = true }
    case .awaitingSubscription, .finishing, .terminal:
      break
    }
    return emitted
  }
}
