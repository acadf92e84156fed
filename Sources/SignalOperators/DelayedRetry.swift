public import StreamCore

extension Publisher {
  /// Resubscribes to the upstream after each failure, waiting the given intervals in between.
  ///
  /// ```swift
  /// download
  ///   .retry(on: DispatchQueue.main, intervals: [0, 1, 5])
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// There is one retry per interval: after the i-th failure the operator waits `intervals[i-1]`
  /// seconds on `scheduler` and subscribes to the upstream again. An interval of zero or less
  /// resubscribes at once, from inside the failure. Once the intervals are used up, the failure
  /// goes downstream; a successful finish goes downstream at once. Values already delivered stay
  /// delivered, so a retry may send them again. The downstream demand not yet met is requested
  /// again from each new attempt. Downstream gets one subscription, for all attempts.
  ///
  /// Intervals are `Double` seconds (Foundation's `TimeInterval`, which StreamKit cannot import),
  /// converted with the stride's `seconds(_:)`.
  ///
  /// **Difference from Conbini:** `tolerance` and `options` are passed to the scheduler; Conbini
  /// ignored them.
  ///
  /// > Thread safety: Upstream may send from any thread. Values and completions go downstream on
  /// > the thread the current attempt sends them on; an attempt that follows a wait subscribes on
  /// > `scheduler`. `request(_:)` and `cancel()` are safe from any thread; `cancel()` stops the
  /// > current attempt and any pending retry.
  ///
  /// - Parameters:
  ///   - scheduler: Runs the waits between attempts.
  ///   - tolerance: How late each retry may start; `nil` means the scheduler's minimum tolerance.
  ///   - options: Options passed to the scheduler with each wait.
  ///   - intervals: The wait, in seconds, before each retry; its count is the number of retries.
  /// - Returns: A publisher that retries the upstream after failures.
  public func retry<S: Scheduler>(
    on scheduler: S,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    options: S.SchedulerOptions? = nil,
    intervals: [Double]
  ) -> Publishers.DelayedRetry<Self, S> {
    Publishers.DelayedRetry(
      upstream: self,
      scheduler: scheduler,
      tolerance: tolerance,
      options: options,
      intervals: intervals
    )
  }

  /// Resubscribes to the upstream after each failure, waiting the given scheduler strides in
  /// between.
  ///
  /// ```swift
  /// download
  ///   .retry(on: queue, intervals: [.zero, .milliseconds(500), .seconds(2)])
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// Behaves as `retry(on:tolerance:options:intervals:)` with `Double` intervals, but takes the
  /// intervals in the scheduler's own stride type.
  ///
  /// Array literals of plain numbers pick the `Double` form (this overload is disfavoured), so
  /// `intervals: [0, 1, 5]` means seconds, as in Conbini; spell strides as strides.
  ///
  /// > Thread safety: As for the `Double` form.
  ///
  /// - Parameters:
  ///   - scheduler: Runs the waits between attempts.
  ///   - tolerance: How late each retry may start; `nil` means the scheduler's minimum tolerance.
  ///   - options: Options passed to the scheduler with each wait.
  ///   - intervals: The wait before each retry; its count is the number of retries.
  /// - Returns: A publisher that retries the upstream after failures.
  @_disfavoredOverload
  public func retry<S: Scheduler>(
    on scheduler: S,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    options: S.SchedulerOptions? = nil,
    intervals: [S.SchedulerTimeType.Stride]
  ) -> Publishers.DelayedRetry<Self, S> {
    Publishers.DelayedRetry(
      upstream: self,
      scheduler: scheduler,
      tolerance: tolerance,
      options: options,
      intervals: intervals
    )
  }
}

extension Publishers {
  /// A publisher that resubscribes to its upstream after failures, waiting on a scheduler
  /// between attempts.
  ///
  /// ```swift
  /// let retrying = Publishers.DelayedRetry(
  ///   upstream: download, scheduler: queue, tolerance: nil, options: nil, intervals: [1, 2])
  /// ```
  ///
  /// See `retry(on:tolerance:options:intervals:)` with `Double` intervals.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct DelayedRetry<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher subscribed to on each attempt.
    public let upstream: Upstream

    /// Runs the waits between attempts.
    public let scheduler: Context

    /// How late each retry may start; `nil` means the scheduler's minimum tolerance.
    public let tolerance: Context.SchedulerTimeType.Stride?

    /// Options passed to the scheduler with each wait.
    public let options: Context.SchedulerOptions?

    /// The wait before each retry, in the scheduler's stride.
    public let intervals: [Context.SchedulerTimeType.Stride]

    /// Creates a retrying publisher with intervals in `Double` seconds.
    ///
    /// - Parameters:
    ///   - upstream: The publisher subscribed to on each attempt.
    ///   - scheduler: Runs the waits between attempts.
    ///   - tolerance: How late each retry may start.
    ///   - options: Options passed to the scheduler with each wait.
    ///   - intervals: The wait before each retry, in seconds.
    public init(
      upstream: Upstream,
      scheduler: Context,
      tolerance: Context.SchedulerTimeType.Stride?,
      options: Context.SchedulerOptions?,
      intervals: [Double]
    ) {
      self.init(
        upstream: upstream,
        scheduler: scheduler,
        tolerance: tolerance,
        options: options,
        intervals: intervals.map { Context.SchedulerTimeType.Stride.seconds($0) }
      )
    }

    /// Creates a retrying publisher with intervals in the scheduler's stride.
    ///
    /// - Parameters:
    ///   - upstream: The publisher subscribed to on each attempt.
    ///   - scheduler: Runs the waits between attempts.
    ///   - tolerance: How late each retry may start.
    ///   - options: Options passed to the scheduler with each wait.
    ///   - intervals: The wait before each retry.
    public init(
      upstream: Upstream,
      scheduler: Context,
      tolerance: Context.SchedulerTimeType.Stride?,
      options: Context.SchedulerOptions?,
      intervals: [Context.SchedulerTimeType.Stride]
    ) {
      self.upstream = upstream
      self.scheduler = scheduler
      self.tolerance = tolerance
      self.options = options
      self.intervals = intervals
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = Inner(
        downstream: subscriber,
        upstream: upstream,
        scheduler: scheduler,
        tolerance: tolerance ?? scheduler.minimumTolerance,
        options: options,
        intervals: intervals
      )
      inner.subscribe(attempt: 0)
    }
  }
}

extension Publishers.DelayedRetry: Sendable
where
  Upstream: Sendable,
  Context.SchedulerOptions: Sendable,
  Context.SchedulerTimeType.Stride: Sendable
{}

extension Publishers.DelayedRetry {
  // Sendable: mutable state is guarded by `lock`; lets are only read; calls out are unlocked.
  private final class Inner<Downstream: Subscriber>: Subscription, @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    /// ```
    /// connecting(n) --attempt n subscribes--> active(n)
    /// active(n) --failure, intervals left, interval <= 0--> connecting(n + 1)
    /// active(n) --failure, intervals left--> waiting(n + 1) --timer--> connecting(n + 1)
    /// active(n) --finished / last failure--> terminal
    /// any --cancel()--> terminal
    /// ```
    private enum Phase {
      case connecting
      case active(any Subscription)
      case waiting
      case terminal
    }

    private enum AttachAction {
      case reject
      case first
      case request(Subscribers.Demand)
    }

    private enum FailureAction {
      case ignore
      case forward
      case resubscribe(Int)
      case wait(Int, Context.SchedulerTimeType.Stride)
    }

    private let lock = Lock()
    private var phase = Phase.connecting
    /// The index of the current attempt; events from older attempts are ignored.
    private var attempt = 0
    /// Requested by downstream minus delivered.
    private var demand = Subscribers.Demand.none
    private var sentSubscription = false

    private let downstream: Downstream
    private let upstream: Upstream
    private let scheduler: Context
    private let tolerance: Context.SchedulerTimeType.Stride
    private let options: Context.SchedulerOptions?
    private let intervals: [Context.SchedulerTimeType.Stride]

    init(
      downstream: Downstream,
      upstream: Upstream,
      scheduler: Context,
      tolerance: Context.SchedulerTimeType.Stride,
      options: Context.SchedulerOptions?,
      intervals: [Context.SchedulerTimeType.Stride]
    ) {
      self.downstream = downstream
      self.upstream = upstream
      self.scheduler = scheduler
      self.tolerance = tolerance
      self.options = options
      self.intervals = intervals
    }

    func subscribe(attempt index: Int) {
      upstream.subscribe(Attempt(inner: self, index: index))
    }

    func attached(_ subscription: any Subscription, index: Int) {
      let action = lock.withLock { () -> AttachAction in
        guard index == attempt, case .connecting = phase else { return .reject }
        phase = .active(subscription)
        if !sentSubscription {
          sentSubscription = true
          return .first
        }
        return .request(demand)
      }
      switch action {
      case .reject:
        subscription.cancel()
      case .first:
        downstream.receive(subscription: self)
      case .request(let pending):
        if pending > .none { subscription.request(pending) }
      }
    }

    func received(_ value: Output, index: Int) -> Subscribers.Demand {
      let deliver = lock.withLock { () -> Bool in
        guard index == attempt, case .active = phase else { return false }
        demand -= 1
        return true
      }
      guard deliver else { return .none }
      let more = downstream.receive(value)
      if more > .none {
        lock.withLock { demand += more }
      }
      return more
    }

    func completed(_ completion: Subscribers.Completion<Failure>, index: Int) {
      var released: (any Subscription)?  // the finished attempt's, released after the lock
      let action = lock.withLock { () -> FailureAction in
        guard index == attempt, case .active(let subscription) = phase else { return .ignore }
        released = subscription
        guard case .failure = completion, attempt < intervals.count else {
          phase = .terminal
          return .forward
        }
        let interval = intervals[attempt]
        attempt += 1
        if interval <= .zero {
          phase = .connecting
          return .resubscribe(attempt)
        }
        phase = .waiting
        return .wait(attempt, interval)
      }
      _ = released
      switch action {
      case .ignore:
        break
      case .forward:
        downstream.receive(completion: completion)
      case .resubscribe(let next):
        subscribe(attempt: next)
      case .wait(let next, let interval):
        scheduler.schedule(
          after: scheduler.now.advanced(by: interval),
          tolerance: tolerance,
          options: options
        ) { [self] in
          timerFired(next)
        }
      }
    }

    private func timerFired(_ index: Int) {
      let go = lock.withLock { () -> Bool in
        guard index == attempt, case .waiting = phase else { return false }
        phase = .connecting
        return true
      }
      if go { subscribe(attempt: index) }
    }

    func request(_ demand: Subscribers.Demand) {
      precondition(demand > .none, "DelayedRetry: request(.none) is not allowed")
      let current = lock.withLock { () -> (any Subscription)? in
        self.demand += demand
        guard case .active(let subscription) = phase else { return nil }
        return subscription
      }
      current?.request(demand)
    }

    func cancel() {
      let current = lock.withLock { () -> (any Subscription)? in
        defer { phase = .terminal }
        guard case .active(let subscription) = phase else { return nil }
        return subscription
      }
      current?.cancel()
    }
  }

  /// Subscribes to one attempt; forwards its events to `inner`, tagged with its index.
  private final class Attempt<Downstream: Subscriber>: Subscriber, Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    let inner: Inner<Downstream>
    let index: Int

    init(inner: Inner<Downstream>, index: Int) {
      self.inner = inner
      self.index = index
    }

    func receive(subscription: any Subscription) {
      inner.attached(subscription, index: index)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      inner.received(input, index: index)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      inner.completed(completion, index: index)
    }
  }
}
