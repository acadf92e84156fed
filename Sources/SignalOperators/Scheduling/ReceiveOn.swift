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
    /// Whether `state.deferred` may hold something: set and cleared only by the thread holding
    /// the gate (only it defers, to itself), so that thread reads it without the lock.
    @usableFromInline let hasDeferred = Atomic<Bool>(false)
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

    /// Schedules `input`'s delivery, while subscribed.
    @inlinable
    func specialisedReceive(_ input: Output) {
      guard lock.withLock({ state.acceptsValues }) else { return }
      let handed = SendableByContract(input)
      scheduler.schedule(options: options) { self.scheduledReceive(handed.wrapped) }
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
      var released: (State.Phase, RingBuffer<State.Delivery>)?
      let upstream = lock.withLock { state.cancel(released: &released) }
      upstream?.cancel()
      _ = released  // the subscriber and deferred values, let go after the lock
    }

    /// A value's action, on the scheduler: delivers `value`, unless this thread is inside the
    /// subscriber already (then that delivery makes it next).
    @inlinable
    func scheduledReceive(_ value: Output) {
      let me = ThreadID.current
      let holds = gate.isHeld(by: me)
      guard let downstream = lock.withLock({ state.take(value, holdsGate: holds) }) else {
        if holds { hasDeferred.store(true, ordering: .relaxed) }
        return
      }
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
        hasDeferred.store(true, ordering: .relaxed)
        return nil
      }
      guard let downstream else { return }
      gate.pass(as: me) { downstream.receive(completion: completion) }
      _ = released
    }

    /// Delivers `value`, holding the gate, then whatever actions that ran on this thread
    /// meanwhile left.
    @inlinable
    func deliver(_ value: Output, to downstream: Downstream) {
      let more = downstream.receive(value)
      if more > .none {
        lock.withLock { state.returnedDemandTarget }?.request(more)
      }
      // Only this thread, holding the gate, leaves deliveries for itself: no lock unless it did.
      if hasDeferred.load(ordering: .relaxed) { deliverDeferred() }
    }

    /// Delivers what actions that ran on this thread, inside the subscriber, left to it.
    @inlinable
    @inline(never)
    func deliverDeferred() {
      while true {
        var released: State.Phase?
        let next = lock.withLock {
          defer { if state.deferred.isEmpty { hasDeferred.store(false, ordering: .relaxed) } }
          return state.nextDeferred(released: &released)
        }
        _ = released
        guard let (delivery, downstream) = next else { return }
        switch delivery {
        case .value(let value):
          let more = downstream.receive(value)
          if more > .none {
            lock.withLock { state.returnedDemandTarget }?.request(more)
          }
        case .completion(let completion):
          downstream.receive(completion: completion)
        }
      }
    }

    @usableFromInline
    var description: String { "ReceiveOn" }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
