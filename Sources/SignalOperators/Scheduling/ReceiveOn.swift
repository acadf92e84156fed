public import StreamCore
public import Synchronization

extension Publisher {
  /// Delivers values and the completion on `scheduler`.
  ///
  /// ```swift
  /// decodedItems
  ///   .receive(on: DispatchQueue.main)
  ///   .sink { tableView.show($0) }
  /// ```
  ///
  /// The subscription is handed downstream at once, on the subscribing thread, and each request
  /// goes straight to the upstream. Values wait in a queue; one scheduled action delivers every
  /// value queued by the time it runs, in order, so a fast upstream costs one scheduler hop per
  /// batch rather than per value. The completion follows the last value on the scheduler.
  ///
  /// > Thread safety: Upstream may send from any thread. Values and the completion are delivered
  /// > on `scheduler`, one at a time. `request(_:)` and `cancel()` are safe from any thread;
  /// > nothing is delivered after `cancel()` returns on the delivering thread.
  ///
  /// - Parameters:
  ///   - scheduler: The scheduler to deliver on.
  ///   - options: Options passed to `scheduler` for each scheduled delivery.
  /// - Returns: A publisher that delivers on `scheduler`.
  @inlinable
  public func receive<S: Scheduler>(
    on scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.ReceiveOn<Self, S> {
    Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
  }
}

extension Publishers {
  /// A publisher that delivers its upstream's values and completion on a scheduler.
  ///
  /// ```swift
  /// let onMain = Publishers.ReceiveOn(upstream: values, scheduler: DispatchQueue.main, options: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/receive(on:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose events are moved to the scheduler.
    public let upstream: Upstream

    /// The scheduler that delivers values and the completion.
    public let scheduler: Context

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that delivers `upstream`'s events on `scheduler`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose events are moved.
    ///   - scheduler: The scheduler to deliver on.
    ///   - options: Options passed to the scheduler.
    @inlinable
    public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
      self.upstream = upstream
      self.scheduler = scheduler
      self.options = options
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, scheduler: scheduler, options: options))
    }
  }
}

extension Publishers.ReceiveOn: Sendable
where Upstream: Sendable, Context.SchedulerOptions: Sendable {}

extension Publishers.ReceiveOn {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active
  /// active --upstream completion--> completing (drains the queue, then sends it)
  /// awaitingSubscription / active / completing --completion sent / cancel()--> terminal
  /// ```
  ///
  /// Only the scheduled drain calls the downstream's `receive`, and `scheduled` makes sure at
  /// most one drain is pending or running.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the one drain that `scheduled` allows; `cancelled` is atomic.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Output

    @usableFromInline
    enum Phase {
      case awaitingSubscription
      case active
      case completing
      case terminal
    }

    @usableFromInline
    enum Step {
      case values(Downstream, [Output])
      case completion(Downstream, Subscribers.Completion<Failure>)
      case stop
    }

    @usableFromInline let lock = Lock()
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline @exclusivity(unchecked) var phase = Phase.awaitingSubscription
    @usableFromInline @exclusivity(unchecked) var downstream: Downstream?
    @usableFromInline var upstream: (any Subscription)?
    /// Values waiting for the drain.
    @usableFromInline @exclusivity(unchecked) var queue: [Output] = []
    /// An empty array that keeps its capacity, swapped with `queue` by each drain.
    @usableFromInline @exclusivity(unchecked) var spare: [Output] = []
    @usableFromInline @exclusivity(unchecked) var demand = Subscribers.Demand.none
    @usableFromInline var completion: Subscribers.Completion<Failure>?
    @usableFromInline @exclusivity(unchecked) var scheduled = false
    /// True while the downstream's `receive(subscription:)` runs: requests made meanwhile are
    /// gathered in `initialDemand` and passed on through the subscription argument afterwards,
    /// which lets the optimiser see the upstream's concrete type and specialise its loop.
    @usableFromInline var subscribing = false
    @usableFromInline var initialDemand = Subscribers.Demand.none
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
      self.downstream = downstream
      self.scheduler = scheduler
      self.options = options
    }

    @inlinable
    func receive(subscription: any Subscription) {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = phase else { return nil }
        phase = .active
        upstream = subscription
        subscribing = true
        return self.downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      let initial = lock.withLock { () -> Subscribers.Demand in
        subscribing = false
        defer { initialDemand = .none }
        return phase == .terminal ? .none : initialDemand
      }
      if initial > .none { subscription.request(initial) }
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
      let schedule = lock.withLock { () -> Bool in
        guard case .active = phase else { return false }
        queue.append(input)
        guard !scheduled else { return false }
        scheduled = true
        return true
      }
      if schedule { scheduleDrain() }
      return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      let (schedule, released) = lock.withLock { () -> (Bool, (any Subscription)?) in
        guard case .active = phase else { return (false, nil) }
        phase = .completing
        self.completion = completion
        let released = upstream.take()
        guard !scheduled else { return (false, released) }
        scheduled = true
        return (true, released)
      }
      _ = released
      if schedule { scheduleDrain() }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let (upstream, schedule) = lock.withLock { () -> ((any Subscription)?, Bool) in
        self.demand += demand
        var forward = self.upstream
        if subscribing {
          initialDemand += demand
          forward = nil
        }
        guard !scheduled, !queue.isEmpty, phase != .terminal else { return (forward, false) }
        scheduled = true
        return (forward, true)
      }
      upstream?.request(demand)
      if schedule { scheduleDrain() }
    }

    @inlinable
    func cancel() {
      let released = lock.withLock {
        () -> (
          Subscribers.Completion<Failure>?, (any Subscription)?, Downstream?, [Output], [Output]
        ) in
        cancelled.store(true, ordering: .relaxed)
        phase = .terminal
        defer {
          queue = []
          spare = []
        }
        return (completion.take(), upstream.take(), downstream.take(), queue, spare)
      }
      released.1?.cancel()
    }

    @inlinable
    func scheduleDrain() {
      scheduler.schedule(options: options) { self.drain() }
    }

    /// Delivers what is queued, within demand, then the completion once the queue is empty.
    /// Runs on the scheduler; loops while values keep arriving, so one scheduled action serves
    /// a whole burst.
    @inlinable
    func drain() {
      while true {
        let step = lock.withLock { () -> Step in
          guard phase != .terminal, let downstream else {
            scheduled = false
            return .stop
          }
          if !queue.isEmpty, demand > .none {
            var batch: [Output]
            if demand >= queue.count {
              batch = queue
              queue = spare
              spare = []
            } else {  // only an upstream that sends beyond demand gets here
              let count = demand.max ?? 0
              batch = Array(queue.prefix(count))
              queue.removeFirst(count)
            }
            if demand != .unlimited { demand -= batch.count }
            return .values(downstream, batch)
          }
          if queue.isEmpty, let completion = completion.take() {
            phase = .terminal
            self.downstream = nil
            scheduled = false
            return .completion(downstream, completion)
          }
          scheduled = false
          return .stop
        }
        switch step {
        case .values(let downstream, var batch):
          var more = Subscribers.Demand.none
          for value in batch {
            if cancelled.load(ordering: .relaxed) { return }
            more += downstream.receive(value)
          }
          batch.removeAll(keepingCapacity: true)
          let upstream = lock.withLock { () -> (any Subscription)? in
            if spare.capacity < batch.capacity { spare = batch }
            guard more > .none else { return nil }
            demand += more
            return self.upstream
          }
          if more > .none { upstream?.request(more) }
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return
        case .stop:
          return
        }
      }
    }

    @usableFromInline
    var description: String { "ReceiveOn" }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
