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
  Upstream: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

extension Publishers.Debounce {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active
  /// active --receive(_:)--> active      (replace pending, generation += 1, restart the timer)
  /// active --timer(generation)--> active (pending becomes ready if there is demand)
  /// active --upstream completion--> completing (pending dropped; completion scheduled)
  /// any --completion delivered / cancel()--> terminal
  /// ```
  ///
  /// Timers capture the inner weakly and are cancelled when superseded or at the end; the
  /// scheduled completion captures it strongly so that it is delivered. The thread that sets
  /// `draining` delivers, so two timers on a concurrent scheduler never call downstream at once.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the thread that set `draining`.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

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
    private var pending: Output?
    private var ready: Output?
    private var completion: Subscribers.Completion<Failure>?
    private var generation: UInt64 = 0
    private var timer: (any Cancellable)?
    private var draining = false
    private let dueTime: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, publisher: Publishers.Debounce<Upstream, Context>) {
      self.downstream = downstream
      dueTime = publisher.dueTime
      scheduler = publisher.scheduler
      options = publisher.options
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
      let started = lock.withLock { () -> (UInt64, (any Cancellable)?, Output?)? in
        guard case .active = phase else { return nil }
        let replaced = pending
        pending = input
        generation &+= 1
        return (generation, self.timer.take(), replaced)
      }
      guard let (generation, previous, _) = started else { return .none }
      previous?.cancel()
      let timer = scheduler.schedule(
        after: scheduler.now.advanced(by: dueTime),
        interval: dueTime,
        tolerance: scheduler.minimumTolerance,
        options: options
      ) { [weak self] in
        self?.timerFired(generation)
      }
      let stale = lock.withLock { () -> Bool in
        guard case .active = phase, self.generation == generation, pending != nil else {
          return true
        }
        self.timer = timer
        return false
      }
      if stale { timer.cancel() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let released = lock.withLock { () -> ((any Cancellable)?, (any Subscription)?, Output?)? in
        guard case .active = phase else { return nil }
        phase = .completing
        self.completion = completion
        return (timer.take(), upstream.take(), pending.take())
      }
      guard let released else { return }
      released.0?.cancel()
      scheduler.schedule(options: options) { self.drain(start: true) }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      lock.withLock { self.demand += demand }
    }

    func cancel() {
      let released = lock.withLock {
        () -> (
          Subscribers.Completion<Failure>?, (any Cancellable)?, (any Subscription)?, Downstream?,
          Output?, Output?
        ) in
        phase = .terminal
        return (
          completion.take(), timer.take(), upstream.take(), downstream.take(), pending.take(),
          ready.take()
        )
      }
      released.1?.cancel()
      released.2?.cancel()
    }

    private func timerFired(_ generation: UInt64) {
      let (timer, start, dropped) = lock.withLock { () -> ((any Cancellable)?, Bool, Output?) in
        guard case .active = phase, self.generation == generation, let value = pending.take()
        else { return (nil, false, nil) }
        let timer = self.timer.take()
        // A value still waiting for the draining thread is replaced (and released after the
        // lock): the unit of demand it took goes back.
        let superseded = ready.take()
        if superseded != nil { demand += 1 }
        guard demand > .none else { return (timer, false, value) }
        demand -= 1
        ready = value
        guard !draining else { return (timer, false, superseded) }
        draining = true
        return (timer, true, superseded)
      }
      _ = dropped
      timer?.cancel()
      if start { drain(start: false) }
    }

    /// Delivers the ready value, then the completion. `start` asks to take `draining` first.
    private func drain(start: Bool) {
      if start {
        let started = lock.withLock { () -> Bool in
          guard !draining else { return false }
          draining = true
          return true
        }
        guard started else { return }
      }
      while true {
        let step = lock.withLock { () -> Step in
          guard phase != .terminal, let downstream else {
            draining = false
            return .stop
          }
          if let value = ready.take() { return .value(downstream, value) }
          guard case .completing = phase, let completion = completion.take() else {
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

    var description: String { "Debounce" }

    var playgroundDescription: Any { description }
  }
}
