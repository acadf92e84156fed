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
  /// > each other). `request(_:)` and `cancel()` are safe from any thread; no value is delivered
  /// > after `cancel()` returns on the delivering thread. Once the upstream's completion has
  /// > arrived, `cancel()` does nothing, as in Combine: what was queued before the completion, and
  /// > the completion, are still delivered.
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
  /// event, forwards requests and cancels.
  ///
  /// Each action delivers the oldest queued event through `gate` (StreamCore's `DeliveryGate`,
  /// Combine's per-subscriber lock), so actions that a concurrent scheduler runs at once take
  /// turns and events keep their order; an action that runs on the thread already inside the
  /// subscriber leaves its delivery to that thread, which makes it when the subscriber returns.
  // Sendable: mutable state is guarded by `lock`; the downstream is called outside it, holding
  // `gate`.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    ScheduledDelivery, CustomStringConvertible, ChildlessReflection,
    CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Output
    @usableFromInline typealias State = ReceiveOnState<Downstream>

    @usableFromInline let lock = Lock()
    @usableFromInline let gate = DeliveryGate()
    @usableFromInline @exclusivity(unchecked) var state: State
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    /// `delay`'s interval and tolerance: `delay` is this operator with each action scheduled
    /// an interval later, as Combine's (the same calls, checks and order; OpenCombine's
    /// `DelayTests`); `nil` for `receive(on:)`.
    @usableFromInline let delay:
      (interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride)?
    /// ``specialisedReceive(_:)``, made where the types are known (in the `@inlinable`
    /// subscribe path): an upstream that calls `receive(_:)` from unspecialised code (a
    /// sequence's drain) then lands in specialised code after one hop, and so do the scheduled
    /// action and the delivery, instead of looking up type metadata at every step.
    @usableFromInline let receiveEntry: (Inner, Output) -> Void

    @inlinable
    init(
      downstream: Downstream,
      scheduler: Context,
      options: Context.SchedulerOptions?,
      delay: (
        interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride
      )? = nil
    ) {
      state = ReceiveOnState(downstream: downstream)
      self.scheduler = scheduler
      self.options = options
      self.delay = delay
      self.receiveEntry = { inner, input in inner.specialisedReceive(input) }
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
      receiveEntry(self, input)
      return .none
    }

    /// Queues `input` and schedules its action, while subscribed.
    @inlinable
    func specialisedReceive(_ input: Output) {
      guard lock.withLock({ state.receive(input) }) else { return }
      scheduleAction()
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      guard lock.withLock({ state.receive(completion: completion) }) else { return }
      scheduleAction()
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      lock.withLock { state.requestTarget }?.request(demand)
    }

    @inlinable
    func cancel() {
      var released: (State.Phase, RingBuffer<State.Event>)?
      let upstream = lock.withLock { state.cancel(released: &released) }
      upstream?.cancel()
      _ = released  // the subscriber and queued events, let go after the lock
    }

    /// Schedules the action for one event: at once for `receive(on:)`, `delay`'s interval
    /// later for `delay`.
    @inlinable
    func scheduleAction() {
      if let delay {
        scheduler.schedule(
          after: scheduler.now.advanced(by: delay.interval),
          tolerance: delay.tolerance,
          options: options
        ) { self.scheduledAction() }
      } else {
        scheduler.schedule(options: options) { self.scheduledAction() }
      }
    }

    @usableFromInline
    var description: String { delay == nil ? "ReceiveOn" : "Delay" }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
