public import StreamCore

extension Publisher {
  /// Collects values into arrays and publishes one every interval, or as soon as it is full.
  ///
  /// ```swift
  /// logLines
  ///   .collect(.byTimeOrCount(DispatchQueue.main, .seconds(1), 100))
  ///   .sink { upload($0) }
  /// ```
  ///
  /// A repeating timer on the strategy's scheduler cuts the values received since the last
  /// group into a new group, if there are any and the subscriber has demand for it (otherwise
  /// they keep collecting). With ``StreamCore/Publishers/TimeGroupingStrategy/byTimeOrCount(_:_:_:)`` a
  /// group is also cut as soon as it holds `count` values, and each downstream request of `n`
  /// groups requests `n * count` values upstream; with
  /// ``StreamCore/Publishers/TimeGroupingStrategy/byTime(_:_:)`` the operator requests `.unlimited`. When the
  /// upstream finishes, the values collected so far go out as a last group, then `.finished`; a
  /// failure drops them and is sent on.
  ///
  /// > Thread safety: Upstream may send from any thread. Groups and the completion are delivered
  /// > on the strategy's scheduler, one at a time. `request(_:)` and `cancel()` are safe from any
  /// > thread; nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - strategy: The scheduler, interval and optional count that cut groups.
  ///   - options: Options passed to the scheduler.
  /// - Returns: A publisher of arrays of upstream values.
  public func collect<S: Scheduler>(
    _ strategy: Publishers.TimeGroupingStrategy<S>,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.CollectByTime<Self, S> {
    Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
  }
}

extension Publishers {
  /// How ``CollectByTime`` cuts its groups.
  ///
  /// ```swift
  /// upstream.collect(.byTime(queue, .milliseconds(500)))
  /// ```
  ///
  /// > Thread safety: A value type; `Sendable` when the scheduler's stride is.
  public enum TimeGroupingStrategy<Context: Scheduler> {
    /// Cut a group every interval, on the scheduler.
    case byTime(Context, Context.SchedulerTimeType.Stride)

    /// Cut a group every interval, or as soon as it holds the given count of values.
    case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
  }

  /// A publisher that collects its upstream's values into arrays cut by time, or by time or
  /// count.
  ///
  /// ```swift
  /// let batches = Publishers.CollectByTime(
  ///   upstream: events, strategy: .byTime(queue, .seconds(1)), options: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/collect(_:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = [Upstream.Output]
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are collected.
    public let upstream: Upstream

    /// The scheduler, interval and optional count that cut groups.
    public let strategy: TimeGroupingStrategy<Context>

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that collects `upstream`'s values into groups.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are collected.
    ///   - strategy: The scheduler, interval and optional count that cut groups; a count must
    ///     be greater than zero.
    ///   - options: Options passed to the scheduler.
    public init(
      upstream: Upstream,
      strategy: TimeGroupingStrategy<Context>,
      options: Context.SchedulerOptions?
    ) {
      if case .byTimeOrCount(_, _, let count) = strategy {
        precondition(count > 0, "CollectByTime: count must be greater than zero, got \(count)")
      }
      self.upstream = upstream
      self.strategy = strategy
      self.options = options
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, strategy: strategy, options: options))
    }
  }
}

extension Publishers.TimeGroupingStrategy: Sendable
where Context.SchedulerTimeType.Stride: Sendable {}

extension Publishers.CollectByTime: Sendable
where
  Upstream: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

extension Publishers.CollectByTime {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active (timer started)
  /// active --tick / count reached--> active (a group moves to `ready`)
  /// active --upstream completion--> completing (last group ready; the drain sends it)
  /// any --completion delivered / cancel()--> terminal
  /// ```
  ///
  /// The timer captures the inner weakly and is cancelled at the end. Only the scheduled drain,
  /// strongly captured and allowed by `scheduled`, calls the downstream.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the drain that `scheduled` allows.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Upstream.Output

    private enum Phase {
      case awaitingSubscription
      case active
      case completing
      case terminal
    }

    private enum Step {
      case group(Downstream, [Input])
      case completion(Downstream, Subscribers.Completion<Failure>)
      case stop
    }

    private let lock = Lock()
    private var phase = Phase.awaitingSubscription
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var timer: (any Cancellable)?
    private var buffer: [Input] = []
    private var ready: [[Input]] = []
    private var demand = Subscribers.Demand.none
    private var completion: Subscribers.Completion<Failure>?
    private var scheduled = false
    private let scheduler: Context
    private let interval: Context.SchedulerTimeType.Stride
    /// The most values in a group, for `byTimeOrCount`.
    private let count: Int?
    private let options: Context.SchedulerOptions?

    init(
      downstream: Downstream,
      strategy: Publishers.TimeGroupingStrategy<Context>,
      options: Context.SchedulerOptions?
    ) {
      self.downstream = downstream
      switch strategy {
      case .byTime(let scheduler, let interval):
        self.scheduler = scheduler
        self.interval = interval
        count = nil
      case .byTimeOrCount(let scheduler, let interval, let count):
        self.scheduler = scheduler
        self.interval = interval
        self.count = count
      }
      self.options = options
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
      if count == nil, lock.withLock({ self.upstream != nil }) {
        subscription.request(.unlimited)
      }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      let schedule = lock.withLock { () -> Bool in
        guard case .active = phase else { return false }
        buffer.append(input)
        guard let count, buffer.count >= count else { return false }
        ready.append(buffer)
        buffer.removeAll(keepingCapacity: true)
        return claimDrain()
      }
      if schedule { scheduleDrain() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let accepted = lock.withLock {
        () -> ((any Cancellable)?, Bool, (any Subscription)?, ([Input], [[Input]]))? in
        guard case .active = phase else { return nil }
        phase = .completing
        self.completion = completion
        var dropped: ([Input], [[Input]]) = ([], [])
        if case .failure = completion {
          dropped = (buffer, ready)
          ready = []
        } else if !buffer.isEmpty {
          ready.append(buffer)
        }
        buffer = []
        return (timer.take(), claimDrain(), upstream.take(), dropped)
      }
      guard let accepted else { return }
      accepted.0?.cancel()
      if accepted.1 { scheduleDrain() }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let (upstream, schedule) = lock.withLock { () -> ((any Subscription)?, Bool) in
        self.demand += demand
        return (count == nil ? nil : self.upstream, claimDrain())
      }
      if let upstream, let count { upstream.request(demand * count) }
      if schedule { scheduleDrain() }
    }

    func cancel() {
      let released = lock.withLock {
        () -> (
          Subscribers.Completion<Failure>?, (any Cancellable)?, (any Subscription)?, Downstream?,
          [Input], [[Input]]
        ) in
        phase = .terminal
        defer {
          buffer = []
          ready = []
        }
        return (completion.take(), timer.take(), upstream.take(), downstream.take(), buffer, ready)
      }
      released.1?.cancel()
      released.2?.cancel()
    }

    /// Under `lock`: whether the caller should start a drain, which it then owns.
    private func claimDrain() -> Bool {
      guard !scheduled, phase != .terminal else { return false }
      guard (!ready.isEmpty && demand > .none) || (ready.isEmpty && completion != nil) else {
        return false
      }
      scheduled = true
      return true
    }

    private func scheduleDrain() {
      scheduler.schedule(options: options) { self.drain() }
    }

    /// Runs on the scheduler every interval: cuts a group if there is demand for it.
    private func tick() {
      let start = lock.withLock { () -> Bool in
        guard case .active = phase, !buffer.isEmpty, demand > ready.count else { return false }
        ready.append(buffer)
        buffer.removeAll(keepingCapacity: true)
        return claimDrain()
      }
      if start { drain() }
    }

    /// Delivers ready groups within demand, then the completion; runs on the scheduler.
    private func drain() {
      while true {
        let step = lock.withLock { () -> Step in
          guard phase != .terminal, let downstream else {
            scheduled = false
            return .stop
          }
          if !ready.isEmpty {
            guard demand > .none else {
              scheduled = false
              return .stop
            }
            demand -= 1
            return .group(downstream, ready.removeFirst())
          }
          guard let completion = completion.take() else {
            scheduled = false
            return .stop
          }
          phase = .terminal
          self.downstream = nil
          scheduled = false
          return .completion(downstream, completion)
        }
        switch step {
        case .group(let downstream, let group):
          let more = downstream.receive(group)
          guard more > .none else { continue }
          let upstream = lock.withLock { () -> (any Subscription)? in
            demand += more
            return count == nil ? nil : self.upstream
          }
          if let upstream, let count { upstream.request(more * count) }
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return
        case .stop:
          return
        }
      }
    }

    var description: String { "CollectByTime" }

    var playgroundDescription: Any { description }
  }
}
