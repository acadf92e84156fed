public import StreamCore

extension Publisher {
  /// Delivers values and the completion on `scheduler`.
  ///
  /// ```swift
  /// decodedItems
  ///   .receive(on: DispatchQueue.main)
  ///   .sink { tableView.show($0) }
  /// ```
  ///
  /// As Combine's: the subscription is handed downstream at once, on the subscribing thread,
  /// and each request goes straight to the upstream. Each value is scheduled as an action of
  /// its own, so other work scheduled in between runs in between; the completion is scheduled
  /// after the values, and a value scheduled before it is still delivered. A request from
  /// inside `receive(_:)` that makes an action run on the same thread (an
  /// `ImmediateScheduler`) doesn't nest: that value is delivered once `receive(_:)` returns.
  ///
  /// > Thread safety: Upstream may send from any thread. Values and the completion are delivered
  /// > on `scheduler`, one at a time (actions that a concurrent scheduler runs at once wait for
  /// > each other). `request(_:)` and `cancel()` are safe from any thread; nothing is delivered
  /// > after `cancel()` returns on the delivering thread.
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
  /// Decides under `lock`, in ``ReceiveOnState``, and acts after it: schedules one action per
  /// value and one for the completion, forwards requests and cancels.
  ///
  /// The subscriber is called through `gate` (StreamCore's `DeliveryGate`, Combine's
  /// per-subscriber lock), so actions that a concurrent scheduler runs at once take turns; an
  /// action that runs on the thread already inside the subscriber leaves its delivery in the
  /// state's `deferred` queue for that thread, which delivers it when the subscriber returns.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, holding
  // `gate`.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Output
    @usableFromInline typealias State = ReceiveOnState<Downstream>

    @usableFromInline let lock = Lock()
    @usableFromInline let gate = DeliveryGate()
    @usableFromInline @exclusivity(unchecked) var state: State
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
      gate.pass(as: .current) { downstream.receive(subscription: self) }
      lock.withLock { state.subscribing = false }
    }

    @inlinable
    func receive(_ input: Output) -> Subscribers.Demand {
      guard lock.withLock({ state.receive(input) }) else { return .none }
      scheduler.schedule(options: options) { self.scheduledReceive() }
      return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      guard lock.withLock({ state.receive(completion: completion) }) else { return }
      scheduler.schedule(options: options) { self.scheduledReceive(completion: completion) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      lock.withLock { state.requestTarget }?.request(demand)
    }

    @inlinable
    func cancel() {
      var released: (State.Phase, RingBuffer<Output>)?
      let upstream = lock.withLock { state.cancel(released: &released) }
      upstream?.cancel()
      _ = released  // the subscriber and deferred values, let go after the lock
    }

    /// A value's action, on the scheduler: delivers the oldest pending value, unless this thread
    /// is inside the subscriber already (then that delivery makes it next).
    @inlinable
    func scheduledReceive() {
      let me = ThreadID.current
      guard
        let (value, downstream) = lock.withLock({ state.takeValue(holdsGate: gate.isHeld(by: me)) })
      else { return }
      gate.pass(as: me) { deliver(value, to: downstream) }
    }

    /// The completion's action, on the scheduler.
    @inlinable
    func scheduledReceive(completion: Subscribers.Completion<Failure>) {
      let me = ThreadID.current
      var released: State.Phase?
      let downstream = lock.withLock { () -> Downstream? in
        guard gate.isHeld(by: me), !state.subscribing else {
          return state.takeForCompletion(released: &released)
        }
        state.deferred.append(.completion(completion))
        return nil
      }
      guard let downstream else { return }
      gate.pass(as: me) { downstream.receive(completion: completion) }
      _ = released
    }

    /// Delivers `first`, then whatever actions that ran on this thread meanwhile left, holding
    /// the gate.
    @inlinable
    func deliver(_ first: Output, to downstream: Downstream) {
      var next: (State.Delivery, Downstream)? = (.value(first), downstream)
      while let (delivery, downstream) = next {
        switch delivery {
        case .value(let value):
          let more = downstream.receive(value)
          if more > .none {
            // As Combine's: asked of the upstream even once it completed (a value scheduled
            // before the completion), not once cancelled.
            lock.withLock { state.target?.upstream }?.request(more)
          }
        case .completion(let completion):
          downstream.receive(completion: completion)
        }
        var released: State.Phase?
        next = lock.withLock { state.nextDeferred(released: &released) }
        _ = released
      }
    }

    @usableFromInline
    var description: String { "ReceiveOn" }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
