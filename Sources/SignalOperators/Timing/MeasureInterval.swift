public import StreamCore

extension Publisher {
  /// Publishes the time between successive upstream values, measured on `scheduler`'s clock.
  ///
  /// ```swift
  /// keyPresses
  ///   .measureInterval(using: DispatchQueue.main)
  ///   .sink { print("typed after \($0)") }
  /// ```
  ///
  /// The first value publishes the time since the subscription; each next one the time since
  /// the value before it. The upstream's values are replaced by strides, the completion passes
  /// through, and the subscriber's demand goes upstream unchanged (as in Combine, what it returns
  /// from `receive(_:)` is requested from the upstream rather than returned to it). Nothing is
  /// scheduled: each stride is delivered on the thread that sent the value.
  ///
  /// <!-- marbles:measure-interval -->
  /// Marble diagram of `measureInterval(using: scheduler)`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a--b-c---d|
  /// output  -1--3-2---4|
  ///         each value: the ticks since the previous one (the first: since subscription)
  /// ```
  ///
  /// ![Marble diagram of measureInterval(using: scheduler)](marble-measure-interval)
  /// <!-- /marbles:measure-interval -->
  ///
  /// > Thread safety: Upstream may send from any thread, one value at a time. `request(_:)` and
  /// > `cancel()` are safe from any thread; nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - scheduler: The scheduler whose `now` is read.
  ///   - options: Accepted for Combine compatibility; unused, since nothing is scheduled.
  /// - Returns: A publisher of the intervals between upstream values.
  public func measureInterval<S: Scheduler>(
    using scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.MeasureInterval<Self, S> {
    Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
  }
}

extension Publishers {
  /// A publisher of the time between its upstream's values.
  ///
  /// ```swift
  /// let gaps = Publishers.MeasureInterval(upstream: taps, scheduler: DispatchQueue.main)
  /// ```
  ///
  /// See ``StreamCore/Publisher/measureInterval(using:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Context.SchedulerTimeType.Stride
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are timed.
    public let upstream: Upstream

    /// The scheduler whose clock is read.
    public let scheduler: Context

    /// Creates a publisher of the intervals between `upstream`'s values.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are timed.
    ///   - scheduler: The scheduler whose clock is read.
    public init(upstream: Upstream, scheduler: Context) {
      self.upstream = upstream
      self.scheduler = scheduler
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, scheduler: scheduler))
    }
  }
}

extension Publishers.MeasureInterval: Sendable where Upstream: Sendable, Context: Sendable {}

extension Publishers.MeasureInterval {
  /// Decides under `lock`, in ``MeasureIntervalState``, and acts after it.
  // Sendable: `state` is guarded by `lock`; the downstream and upstream are called outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Upstream.Output
    typealias Time = Context.SchedulerTimeType

    private let lock = Lock()
    private var state: MeasureIntervalState<Downstream, Time>
    private let scheduler: Context

    init(downstream: Downstream, scheduler: Context) {
      state = .awaitingSubscription(downstream)
      self.scheduler = scheduler
    }

    func receive(subscription: any Subscription) {
      let now = scheduler.now
      guard let downstream = lock.withLock({ state.receive(subscription: subscription, at: now) })
      else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      let now = scheduler.now
      guard let measured = lock.withLock({ state.receive(at: now) }) else { return .none }
      // As Combine: the subscriber's extra demand is requested from the upstream, not returned.
      let more = measured.downstream.receive(measured.last.distance(to: now))
      if more > .none, let upstream = lock.withLock({ state.upstream }) { upstream.request(more) }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let ended = lock.withLock { state.complete() }
      ended?.downstream.receive(completion: completion)
    }  // the upstream subscription is released here, after the lock

    func request(_ demand: Subscribers.Demand) {
      lock.withLock { state.upstream }?.request(demand)
    }

    func cancel() {
      let ended = lock.withLock { state.cancel() }
      ended?.upstream?.cancel()
    }  // the subscriber is released here, after the lock

    var description: String { "MeasureInterval" }

    var playgroundDescription: Any { description }
  }
}

/// The state of a `measureInterval(using:options:)` subscription, as data: each transition runs
/// under the operator's lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active (clock read)
/// active --receive(at:)--> active (the interval goes downstream, clock read)
/// active --complete()--> terminal;  any --cancel()--> terminal
/// ```
enum MeasureIntervalState<Downstream, Time> {
  /// Before the upstream's subscription arrives.
  case awaitingSubscription(Downstream)
  /// Subscribed: the time of the subscription or of the last value is kept.
  case active(Active)
  /// Completed or cancelled: nothing is held.
  case terminal

  /// What exists while subscribed.
  struct Active {
    /// The upstream's subscription.
    let upstream: any Subscription
    /// Who receives the intervals.
    let downstream: Downstream
    /// When the subscription or the last value arrived.
    var last: Time
  }

  /// A value arrived: send `downstream` the time since `last`.
  struct Measured {
    /// Who receives the interval.
    let downstream: Downstream
    /// When the subscription or the previous value arrived.
    let last: Time
  }

  /// What ending lets go of, after the lock.
  struct Ended {
    /// The upstream's subscription, if it had arrived.
    let upstream: (any Subscription)?
    /// The subscriber.
    let downstream: Downstream
  }

  /// Stores the first upstream subscription and starts the clock at `now`; returns the
  /// subscriber, or `nil` when `subscription` must be cancelled.
  mutating func receive(subscription: any Subscription, at now: Time) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = self else { return nil }
    self = .active(Active(upstream: subscription, downstream: downstream, last: now))
    return downstream
  }

  /// A value arrived at `now`: returns the subscriber and the previous time, and keeps `now`.
  mutating func receive(at now: Time) -> Measured? {
    guard case .active(var active) = self else { return nil }
    self = .terminal
    defer { self = .active(active) }
    let measured = Measured(downstream: active.downstream, last: active.last)
    active.last = now
    return measured
  }

  /// The upstream's subscription, while subscribed.
  var upstream: (any Subscription)? {
    guard case .active(let active) = self else { return nil }
    return active.upstream
  }

  /// The upstream completed; `nil` unless subscribed.
  mutating func complete() -> Ended? {
    guard case .active(let active) = self else { return nil }
    self = .terminal
    return Ended(upstream: active.upstream, downstream: active.downstream)
  }

  /// Ends everything; `nil` once terminal.
  mutating func cancel() -> Ended? {
    switch self {
    case .awaitingSubscription(let downstream):
      self = .terminal
      return Ended(upstream: nil, downstream: downstream)
    case .active:
      return complete()
    case .terminal:
      return nil
    }
  }
}
