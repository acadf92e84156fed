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
      upstream.subscribe(Inner(downstream: subscriber, publisher: self))
    }
  }
}

extension Publishers.Timeout {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active (timer started once it's handed on)
  /// active --receive(_:)--> active (queued for the drain, timer restarted)
  /// active --upstream completion / timer--> completing (the drain sends it after the queue)
  /// any --completion delivered / cancel()--> terminal
  /// ```
  ///
  /// Timers capture the inner weakly and carry the generation they were started for; a restart
  /// cancels the previous one. One scheduled drain, strongly captured, delivers what is queued.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the drain that `scheduled` allows; `customError` is called once, outside the lock.
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
    /// A value is moved out of its slot (leaving `nil`) when it is delivered, so compacting
    /// never releases a value under the lock.
    private var queue: [Output?] = []
    private var head = 0
    private var completion: Subscribers.Completion<Failure>?
    private var scheduled = false
    private var generation: UInt64 = 0
    private var timer: (any Cancellable)?
    private var requested = false
    /// Whether the downstream's `receive(subscription:)` has returned; no timer runs before.
    private var handedOver = false
    private var customError: (() -> Failure)?
    private let interval: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, publisher: Publishers.Timeout<Upstream, Context>) {
      self.downstream = downstream
      interval = publisher.interval
      scheduler = publisher.scheduler
      options = publisher.options
      customError = publisher.customError
    }

    func receive(subscription: any Subscription) {
      let target = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = phase, let downstream else { return nil }
        phase = .active
        upstream = subscription
        return downstream
      }
      guard let target else {
        subscription.cancel()
        return
      }
      target.receive(subscription: self)
      // The timer starts only now: started earlier, it could time out (at once on an immediate
      // scheduler, on another thread on a concurrent one) before the downstream had this
      // subscription. Requests and values during `receive(subscription:)` don't start one.
      let first = lock.withLock { () -> UInt64? in
        handedOver = true
        guard case .active = phase else { return nil }
        generation &+= 1
        return generation
      }
      if let first { startTimer(first) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let accepted = lock.withLock { () -> (UInt64?, (any Cancellable)?, Bool)? in
        guard case .active = phase else { return nil }
        queue.append(input)
        generation &+= 1
        let schedule = !scheduled
        scheduled = true
        return (handedOver ? generation : nil, timer.take(), schedule)
      }
      guard let (generation, previous, schedule) = accepted else { return .none }
      previous?.cancel()
      if let generation { startTimer(generation) }
      if schedule { scheduler.schedule(options: options) { self.drain() } }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let accepted = lock.withLock {
        () -> ((any Cancellable)?, (any Subscription)?, (() -> Failure)?, Bool)? in
        guard case .active = phase else { return nil }
        phase = .completing
        self.completion = completion
        let schedule = !scheduled
        scheduled = true
        return (timer.take(), upstream.take(), customError.take(), schedule)
      }
      guard let accepted else { return }
      accepted.0?.cancel()
      if accepted.3 { scheduler.schedule(options: options) { self.drain() } }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let found = lock.withLock { () -> ((any Subscription)?, (UInt64, (any Cancellable)?)?) in
        guard case .active = phase, !requested else { return (upstream, nil) }
        requested = true
        guard handedOver else { return (upstream, nil) }  // the timer starts after the handover
        generation &+= 1
        return (upstream, (generation, timer.take()))
      }
      if let (generation, previous) = found.1 {
        previous?.cancel()
        startTimer(generation)
      }
      found.0?.request(demand)
    }

    func cancel() {
      let released = lock.withLock {
        () -> (
          Subscribers.Completion<Failure>?, (any Cancellable)?, (any Subscription)?, Downstream?,
          [Output?], (() -> Failure)?
        ) in
        phase = .terminal
        head = 0
        defer { queue = [] }
        return (
          completion.take(), timer.take(), upstream.take(), downstream.take(), queue,
          customError.take()
        )
      }
      released.1?.cancel()
      released.2?.cancel()
    }

    private func startTimer(_ generation: UInt64) {
      let timer = scheduler.schedule(
        after: scheduler.now.advanced(by: interval),
        interval: interval,
        tolerance: scheduler.minimumTolerance,
        options: options
      ) { [weak self] in
        self?.timedOut(generation)
      }
      let stale = lock.withLock { () -> Bool in
        guard case .active = phase, self.generation == generation else { return true }
        self.timer = timer
        return false
      }
      if stale { timer.cancel() }
    }

    private func timedOut(_ generation: UInt64) {
      let fired = lock.withLock {
        () -> ((any Cancellable)?, (any Subscription)?, [Output?], (() -> Failure)?)? in
        guard case .active = phase, self.generation == generation else { return nil }
        phase = .completing
        head = 0
        defer { queue = [] }
        return (timer.take(), upstream.take(), queue, customError.take())
      }
      guard let fired else { return }
      fired.0?.cancel()
      fired.1?.cancel()
      let completion: Subscribers.Completion<Failure> = fired.3.map { .failure($0()) } ?? .finished
      let start = lock.withLock { () -> Bool in
        guard case .completing = phase else { return false }
        self.completion = completion
        guard !scheduled else { return false }
        scheduled = true
        return true
      }
      if start { drain() }
    }

    /// Delivers the queued values, then the completion; runs on the scheduler.
    private func drain() {
      while true {
        let step = lock.withLock { () -> Step in
          guard phase != .terminal, let downstream else {
            scheduled = false
            return .stop
          }
          if head < queue.count {
            guard let value = queue[head].take() else {
              preconditionFailure("Timeout: an undelivered slot is empty")
            }
            head += 1
            if head == queue.count {
              queue.removeAll(keepingCapacity: true)
              head = 0
            } else if head >= 64, head * 2 >= queue.count {
              queue.removeFirst(head)
              head = 0
            }
            return .value(downstream, value)
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
        case .value(let downstream, let value):
          let more = downstream.receive(value)
          if more > .none { lock.withLock { upstream }?.request(more) }
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return
        case .stop:
          return
        }
      }
    }

    var description: String { "Timeout" }

    var playgroundDescription: Any { description }
  }
}
