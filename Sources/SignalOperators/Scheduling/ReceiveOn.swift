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
where Upstream: Sendable, Context: Sendable, Context.SchedulerOptions: Sendable {}

extension Publishers.ReceiveOn {
  /// Decides under `lock`, in ``ReceiveOnState``, and acts after it: schedules the drain,
  /// forwards requests, delivers batches on the scheduler.
  ///
  /// Only the scheduled drain calls the downstream's `receive`; the state's ``SerialDrain`` makes
  /// sure at most one drain is scheduled or running. `cancelled` is read before each value of a
  /// batch, so a cancel stops the batch without a lock round trip per value.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, only by
  // the drain that claimed the state's `SerialDrain`; `cancelled` is atomic.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Output

    @usableFromInline let lock = Lock()
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline @exclusivity(unchecked) var state: ReceiveOnState<Downstream>
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
      state = ReceiveOnState(downstream: downstream)
      self.scheduler = scheduler
      self.options = options
    }

    @inlinable
    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      let initial = lock.withLock { state.subscribed() }
      if initial > .none { subscription.request(initial) }
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
      if lock.withLock({ state.receive(input) }) { scheduleDrain() }
      return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      guard let completed = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      if completed.claimed { scheduleDrain() }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let requested = lock.withLock { state.request(demand) }
      requested.upstream?.request(demand)
      if requested.claimed { scheduleDrain() }
    }

    @inlinable
    func cancel() {
      let released = lock.withLock { () -> ReceiveOnState<Downstream>.Released in
        cancelled.store(true, ordering: .relaxed)
        return state.cancel()
      }
      released.upstream?.cancel()
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
      SerialDrain.run(lock) {
        state.nextStep()
      } perform: { step in
        switch consume step {
        case .values(let downstream, var batch):
          var more = Subscribers.Demand.none
          for value in batch {
            if cancelled.load(ordering: .relaxed) { return false }
            more += downstream.receive(value)
          }
          batch.removeAll(keepingCapacity: true)
          let upstream = lock.withLock { state.delivered(batch, more: more) }
          upstream?.request(more)
          return true
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return false
        }
      }
    }

    @usableFromInline
    var description: String { "ReceiveOn" }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
