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
  // Sendable: all mutable state is guarded by `lock`; downstream and upstream are called
  // outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    /// ```
    /// awaitingSubscription --receive(subscription:)--> active
    /// active --receive(_:)--> active           (replace the latest value)
    /// active --tick--> active                  (emit the latest value if demand > 0)
    /// active --receive(completion:)--> completing --scheduled--> terminal
    /// any --cancel()--> terminal
    /// ```
    typealias Input = Output

    private enum Phase {
      case awaitingSubscription
      case active
      case completing
      case terminal
    }

    private let lock = Lock()
    private var phase = Phase.awaitingSubscription
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var timer: (any Cancellable)?
    private var latest: Input?
    private var demand = Subscribers.Demand.none
    private let scheduler: Context
    private let interval: Context.SchedulerTimeType.Stride
    private let options: Context.SchedulerOptions?

    var description: String { "Sample" }

    init(downstream: Downstream, sampler: Publishers.Sample<Upstream, Context>) {
      self.downstream = downstream
      scheduler = sampler.scheduler
      interval = sampler.interval
      options = sampler.options
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
      // The timer starts once the downstream has its subscription, so no tick (on another
      // thread, with a concurrent scheduler) comes before or during its receive(subscription:).
      let timer = scheduler.schedule(
        after: scheduler.now.advanced(by: interval),
        interval: interval,
        tolerance: scheduler.minimumTolerance,
        options: options
      ) { [weak self] in
        self?.tick()
      }
      let stale = lock.withLock { () -> Bool in
        guard case .active = phase else { return true }
        self.timer = timer
        return false
      }
      if stale { timer.cancel() }
      if let upstream = lock.withLock({ self.upstream }) {
        upstream.request(.unlimited)
      }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      let replaced = lock.withLock { () -> Input? in
        guard case .active = phase else { return nil }
        defer { latest = input }
        return latest
      }
      _ = replaced  // released after the lock
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // The upstream subscription and a value dropped by a failure are released after the lock.
      let ended = lock.withLock {
        () -> ((any Cancellable)?, (any Subscription)?, Input?)? in
        guard case .active = phase else { return nil }
        phase = .completing
        let dropped: Input? = if case .failure = completion { latest.take() } else { nil }
        return (self.timer.take(), upstream.take(), dropped)
      }
      guard let (timer, _, _) = ended else { return }
      timer?.cancel()
      scheduler.schedule(options: options) { self.complete(completion) }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      lock.withLock { self.demand += demand }
    }

    func cancel() {
      let released = lock.withLock {
        () -> ((any Cancellable)?, (any Subscription)?, Downstream?, Input?) in
        phase = .terminal
        return (timer.take(), upstream.take(), downstream.take(), latest.take())
      }
      released.0?.cancel()
      released.1?.cancel()
    }

    /// Runs on the scheduler at every tick: emits the latest value if there is demand.
    private func tick() {
      let emit = lock.withLock { () -> (Downstream, Input)? in
        guard case .active = phase, demand > .none, let downstream, let value = latest.take()
        else { return nil }
        demand -= 1
        return (downstream, value)
      }
      guard let (downstream, value) = emit else { return }
      let more = downstream.receive(value)
      if more > .none { lock.withLock { demand += more } }
    }

    /// Runs on the scheduler after upstream completed: flushes the latest value, then ends.
    private func complete(_ completion: Subscribers.Completion<Failure>) {
      let flush = lock.withLock { () -> (Downstream, Input?)? in
        guard case .completing = phase, let downstream else { return nil }
        guard demand > .none, let value = latest.take() else { return (downstream, nil) }
        demand -= 1
        return (downstream, value)
      }
      guard let (downstream, value) = flush else { return }
      if let value { _ = downstream.receive(value) }
      let released = lock.withLock { () -> (Downstream?, Input?)? in
        guard case .completing = phase else { return nil }
        phase = .terminal
        return (self.downstream.take(), latest.take())
      }
      guard released != nil else { return }
      downstream.receive(completion: completion)
    }
  }
}
