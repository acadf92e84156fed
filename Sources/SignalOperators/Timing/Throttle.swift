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
  /// `latest` is `true` (the held value already has its unit of demand, so this works when the
  /// subscriber asks for one value at a time) and are dropped if it is `false`. Other values that
  /// arrive while the subscriber has no demand are dropped. When the upstream completes, a held
  /// value is sent first and the completion right after it; otherwise the completion is scheduled
  /// at once.
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
where Upstream: Sendable, Context.SchedulerTimeType.Stride: Sendable {}

extension Publishers.Throttle {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active
  /// active --receive(_:) with demand, nothing held--> active (hold it, schedule its emission)
  /// active --receive(_:) while holding--> active (replace it if `latest`, else drop)
  /// active --upstream completion--> completing (sent after the held value, or scheduled now)
  /// any --completion delivered / cancel()--> terminal
  /// ```
  ///
  /// Scheduled emissions capture the inner strongly, so a held value and the completion are
  /// delivered even if nothing else holds the inner; after `cancel()` they find nothing to do.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the thread that set `draining`.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output
    typealias Time = Context.SchedulerTimeType

    private enum Phase {
      case awaitingSubscription
      case active
      case completing
      case terminal
    }

    private enum Step {
      case value(Downstream, Output)
      case completion(Downstream, Subscribers.Completion<Failure>)
      case stop
    }

    private let lock = Lock()
    private var phase = Phase.awaitingSubscription
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var demand = Subscribers.Demand.none
    /// The value waiting for its scheduled emission.
    private var held: Output?
    /// Whether an emission is scheduled (for `held` or the completion).
    private var emissionScheduled = false
    /// Values and the completion that are due and wait for the draining thread.
    private var ready: Output?
    private var completion: Subscribers.Completion<Failure>?
    private var completionDue = false
    private var lastEmission: Time?
    private var draining = false
    private let interval: Time.Stride
    private let scheduler: Context
    private let latest: Bool

    init(downstream: Downstream, publisher: Publishers.Throttle<Upstream, Context>) {
      self.downstream = downstream
      interval = publisher.interval
      scheduler = publisher.scheduler
      latest = publisher.latest
    }

    func receive(subscription: any Subscription) {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = phase else { return nil }
        phase = .active
        upstream = subscription
        return self.downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      subscription.request(.unlimited)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let now = scheduler.now
      let (emitAt, dropped) = lock.withLock { () -> (Time?, Output?) in
        guard case .active = phase else { return (nil, input) }
        if emissionScheduled {
          // The held value already has its unit of demand; with `latest` this one takes its
          // place, so the interval ends with its latest value even when demand is now spent.
          guard latest else { return (nil, input) }
          let replaced = held
          held = input
          return (nil, replaced)
        }
        guard demand > .none else { return (nil, input) }
        demand -= 1
        held = input
        emissionScheduled = true
        guard let lastEmission else { return (now, nil) }
        return (Swift.max(now, lastEmission.advanced(by: interval)), nil)
      }
      _ = dropped
      if let emitAt { schedule(at: emitAt, now: now) }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let (schedule, released) = lock.withLock { () -> (Bool, (any Subscription)?) in
        guard case .active = phase else { return (false, nil) }
        phase = .completing
        self.completion = completion
        let released = upstream.take()
        guard !emissionScheduled else { return (false, released) }
        emissionScheduled = true
        return (true, released)
      }
      _ = released
      if schedule { scheduler.schedule { self.emit() } }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      lock.withLock { self.demand += demand }
    }

    func cancel() {
      let released = lock.withLock {
        () -> (Subscribers.Completion<Failure>?, (any Subscription)?, Downstream?, Output?, Output?)
        in
        phase = .terminal
        return (completion.take(), upstream.take(), downstream.take(), held.take(), ready.take())
      }
      released.1?.cancel()
    }

    private func schedule(at time: Time, now: Time) {
      if time <= now {
        scheduler.schedule { self.emit() }
      } else {
        scheduler.schedule(after: time) { self.emit() }
      }
    }

    /// Runs when a scheduled emission is due: the held value and then any completion become
    /// ready, and the draining thread delivers them.
    private func emit() {
      let now = scheduler.now
      var superseded: Output?  // released after the lock
      let start = lock.withLock { () -> Bool in
        guard phase != .terminal, emissionScheduled else { return false }
        emissionScheduled = false
        if let value = held.take() {
          // A value still waiting for the draining thread is replaced: its unit of demand, taken
          // when it was held, goes back.
          superseded = ready.take()
          if superseded != nil { demand += 1 }
          ready = value
          lastEmission = now
        }
        if case .completing = phase { completionDue = true }
        guard !draining else { return false }
        draining = true
        return true
      }
      _ = superseded
      guard start else { return }
      while true {
        let step = lock.withLock { () -> Step in
          guard phase != .terminal, let downstream else {
            draining = false
            return .stop
          }
          if let value = ready.take() { return .value(downstream, value) }
          guard completionDue, let completion = completion.take() else {
            draining = false
            return .stop
          }
          phase = .terminal
          self.downstream = nil
          draining = false
          return .completion(downstream, completion)
        }
        switch step {
        case .value(let downstream, let value):
          let more = downstream.receive(value)
          if more > .none { lock.withLock { demand += more } }
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return
        case .stop:
          return
        }
      }
    }

    var description: String { "Throttle" }

    var playgroundDescription: Any { description }
  }
}
