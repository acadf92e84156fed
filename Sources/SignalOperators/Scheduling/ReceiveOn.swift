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
    CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Output
    @usableFromInline typealias State = ReceiveOnState<Downstream>

    @usableFromInline let lock = Lock()
    @usableFromInline let gate = DeliveryGate()
    @usableFromInline @exclusivity(unchecked) var state: State
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    /// ``specialisedReceive(_:)``, made where the types are known (in the `@inlinable`
    /// subscribe path): an upstream that calls `receive(_:)` from unspecialised code (a
    /// sequence's drain) then lands in specialised code after one hop, and so do the scheduled
    /// action and the delivery, instead of looking up type metadata at every step.
    @usableFromInline let receiveEntry: (Inner, Output) -> Void

    @inlinable
    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
      state = ReceiveOnState(downstream: downstream)
      self.scheduler = scheduler
      self.options = options
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
      scheduler.schedule(options: options) { self.scheduledAction() }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      guard lock.withLock({ state.receive(completion: completion) }) else { return }
      scheduler.schedule(options: options) { self.scheduledAction() }
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

    /// An action, on the scheduler: delivers the oldest queued event holding the gate, then
    /// the actions owed to it; or, on the thread already inside the subscriber, leaves its
    /// delivery to that call.
    @inlinable
    func scheduledAction() {
      let me = ThreadID.current
      if gate.isHeld(by: me) {
        var event: State.Event?
        var released: State.Phase?
        let downstream = lock.withLock {
          state.take(holdsGate: true, event: &event, released: &released)
        }
        _ = released
        // Inside `receive(subscription:)`: delivered at once, as in Combine.
        if let downstream, let event { deliver(event, to: downstream) }
        return
      }
      gate.pass(as: me) {
        var event: State.Event?
        var released: State.Phase?
        var downstream = lock.withLock {
          state.take(holdsGate: false, event: &event, released: &released)
        }
        while let target = downstream, let next = event {
          deliver(next, to: target)
          event = nil
          downstream = lock.withLock { state.takeOwed(event: &event, released: &released) }
        }
        _ = released
      }
    }

    /// Delivers one event.
    @inlinable
    func deliver(_ event: State.Event, to downstream: Downstream) {
      switch event {
      case .value(let value):
        let more = downstream.receive(value)
        if more > .none {
          lock.withLock { state.returnedDemandTarget }?.request(more)
        }
      case .completion(let completion):
        downstream.receive(completion: completion)
      }
    }

    @usableFromInline
    var description: String { "ReceiveOn" }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
