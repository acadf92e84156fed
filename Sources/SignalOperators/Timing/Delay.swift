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
  Upstream: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

extension Publishers.Delay {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active
  /// active --upstream completion--> completing (its delivery is scheduled after the values')
  /// any --completion delivered / cancel()--> terminal
  /// ```
  ///
  /// Events wait in `queue`; each scheduled action makes one more event due (`due += 1`), and
  /// the thread that sets `draining` delivers due events from the front, so order holds even if
  /// the scheduler reorders actions. An action scheduled before `cancel()` keeps the inner alive
  /// until it runs, but by then everything else has been released.
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
    /// A value is moved out of its slot (leaving `nil`) when it is delivered, so compacting
    /// never releases a value under the lock.
    private var queue: [Output?] = []
    private var head = 0
    private var completion: Subscribers.Completion<Failure>?
    private var due = 0
    private var draining = false
    private let interval: Context.SchedulerTimeType.Stride
    private let tolerance: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, publisher: Publishers.Delay<Upstream, Context>) {
      self.downstream = downstream
      interval = publisher.interval
      tolerance = publisher.tolerance
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
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let accepted = lock.withLock { () -> Bool in
        guard case .active = phase else { return false }
        queue.append(input)
        return true
      }
      if accepted { scheduleOne() }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let (accepted, released) = lock.withLock { () -> (Bool, (any Subscription)?) in
        guard case .active = phase else { return (false, nil) }
        phase = .completing
        self.completion = completion
        return (true, upstream.take())
      }
      _ = released
      if accepted { scheduleOne() }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      lock.withLock { upstream }?.request(demand)
    }

    func cancel() {
      let released = lock.withLock {
        () -> (Subscribers.Completion<Failure>?, (any Subscription)?, Downstream?, [Output?]) in
        phase = .terminal
        head = 0
        defer { queue = [] }
        return (completion.take(), upstream.take(), downstream.take(), queue)
      }
      released.1?.cancel()
    }

    private func scheduleOne() {
      scheduler.schedule(
        after: scheduler.now.advanced(by: interval),
        tolerance: tolerance,
        options: options
      ) { self.fire() }
    }

    /// Makes the front event due and delivers what is due, unless another thread is at it.
    private func fire() {
      let start = lock.withLock { () -> Bool in
        guard phase != .terminal else { return false }
        due += 1
        guard !draining else { return false }
        draining = true
        return true
      }
      guard start else { return }
      while true {
        let step = lock.withLock { () -> Step in
          guard phase != .terminal, due > 0, let downstream else {
            draining = false
            return .stop
          }
          due -= 1
          if head < queue.count {
            guard let value = queue[head].take() else {
              preconditionFailure("Delay: an undelivered slot is empty")
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
          if more > .none { lock.withLock { upstream }?.request(more) }
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return
        case .stop:
          return
        }
      }
    }

    var description: String { "Delay" }

    var playgroundDescription: Any { description }
  }
}
