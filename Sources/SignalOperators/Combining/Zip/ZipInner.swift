public import StreamCore

/// The subscription of `Zip`, `Zip3` and `Zip4`: one state machine for every arity, whose
/// states and transitions are ``ZipState``'s; this class takes the lock, performs what the
/// transitions decide after it, and delivers.
///
/// Demand, as Combine's: a `request(_:)` is forwarded to every upstream; the demand the
/// subscriber returns from `receive(_:)` is added to its demand and goes back only to the
/// upstream whose value completed the tuple, as the return value of its `receive(_:)` (also
/// once the demand is unlimited), and to no upstream for a tuple the drain delivered
/// (OpenCombine's `Zip`, whose suite runs against Combine too). Values wait in their upstream's
/// queue until every queue has one and there is demand.
///
/// Delivery: through `gate` (``DeliveryGate``), as Combine's downstream lock: a value that
/// completes a tuple takes it in the critical section that stores it, inside the gate, and the
/// tuple goes down on that value's thread, after a delivery under way on another thread, and
/// re-entrantly when the value was sent from inside the subscriber. A value that answers a
/// request this subscription made from inside the gate (`requestingUpstreams`) stays in its
/// queue, and the outermost pass of the thread in the gate delivers the tuple once its own
/// call returns (`nestedWork`), so a synchronous upstream never makes deliveries nest.
// Sendable: `state`, `downstream` and `started` are guarded by `lock`, `nestedWork` and
// `requestingUpstreams` by `gate`; downstream calls happen inside the gate, and every call out
// after the lock.
@usableFromInline
final class ZipInner<Storage: ZipQueues, Downstream: Subscriber>:
  // Sendable: state guarded by `lock`, calls made outside it (the reason above the class).
  @unchecked Sendable, CombiningCore, Subscription, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible
where Downstream.Input == Storage.Output {
  @usableFromInline typealias Failure = Downstream.Failure
  @usableFromInline typealias State = ZipState<Storage, Failure>

  @usableFromInline
  enum ValueAction {
    case ignore
    case deliver(Storage.Output, Downstream, unlimited: Bool, ending: Bool)
    /// A tuple is ready but left for the outermost pass.
    case later
  }

  @usableFromInline
  enum DrainStep {
    case value(Storage.Output, Downstream)
    case completion(
      Subscribers.Completion<Failure>,
      Downstream,
      cancels: CombiningCalls,
      released: Storage
    )
    case stop
  }

  // `@exclusivity(unchecked)` below: each such `var` is touched only under `lock`, or (the
  // flags said to be) only by the thread holding `gate`, whose lock makes access exclusive.
  @usableFromInline let lock = Lock()

  /// Held across every call to the subscriber.
  @usableFromInline let gate = DeliveryGate()

  /// `nil` once the state has ended.
  @usableFromInline @exclusivity(unchecked) var downstream: Downstream?
  @usableFromInline @exclusivity(unchecked) var state = State()
  /// Whether the subscriber has its subscription: nothing goes down before ``start()``.
  @usableFromInline @exclusivity(unchecked) var started = false
  /// Set by a nested pass through the gate that left a tuple or the completion: the outermost
  /// pass delivers it once its own call returns. Guarded by `gate`.
  @usableFromInline @exclusivity(unchecked) var nestedWork = false
  /// Set while the thread in the gate asks upstreams for values: a value they send at once
  /// waits in its queue rather than being delivered from inside the request. Guarded by `gate`.
  @usableFromInline @exclusivity(unchecked) var requestingUpstreams = false

  @inlinable
  init(downstream: Downstream) {
    self.downstream = downstream
  }

  /// Called once every upstream has been subscribed (as Combine, the subscriber gets its
  /// subscription after them): hands the subscriber its subscription, then delivers what
  /// arrived meanwhile (a failure, say).
  @inlinable
  func start() {
    gate.enter(as: ThreadID.current) { outermost in
      if let downstream = lock.withLock({ downstream }) {
        downstream.receive(subscription: self)
      }
      lock.withLock { started = true }
      if outermost { drainAvailable() } else { nestedWork = true }
    }
  }

  @usableFromInline
  var description: String { "Zip" }

  @usableFromInline
  var playgroundDescription: Any { description }

  /// Whether the subscription is neither completed nor cancelled.
  @inlinable
  var isActive: Bool { lock.withLock { !state.isEnded } }

  // MARK: Upstream events

  @inlinable
  func receive(subscription: any Subscription, at index: Int) {
    let request = lock.withLock { state.subscribed(subscription, at: index) }
    if let request {
      if request > .none { subscription.request(request) }
    } else {
      subscription.cancel()
    }
  }

  @inlinable
  func receive<Slot: CombiningSlot>(_ value: Slot.Value, slot: Slot.Type) -> Subscribers.Demand
  where Slot.Storage == Storage {
    gate.enter(as: ThreadID.current) { outermost in
      let action = lock.withLock { () -> ValueAction in
        guard state.put(value, slot: slot), state.canDeliver, let downstream else {
          return .ignore
        }
        guard started, !requestingUpstreams else { return .later }
        let (output, ending) = state.takeTuple()
        state.startProcessing(Slot.index)
        return .deliver(output, downstream, unlimited: state.demand == .unlimited, ending: ending)
      }
      var giveBack = Subscribers.Demand.none
      switch action {
      case .ignore:
        break
      case .later:
        nestedWork = true
      case .deliver(let output, let downstream, let unlimited, let ending):
        let more = downstream.receive(output)
        let requestedMeanwhile = lock.withLock { state.endProcessing() }
        if !unlimited, more > .none {
          lock.withLock { state.addReturned(more) }
          nestedWork = true
        } else if ending {
          nestedWork = true
        }
        // As Combine: the upstream whose value completed the tuple gets the downstream's
        // demand back, also once it is unlimited or the subscription ended; when the downstream
        // returned none, what it requested from inside `receive(_:)` (which went to the other
        // upstreams).
        giveBack = more > .none ? more : requestedMeanwhile
      }
      if outermost, nestedWork { drainAvailable() }
      return giveBack
    }
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    let action = lock.withLock { state.complete(completion, at: index) }
    action.cancels.cancel()
    if action.ending { deliverPending() }
  }

  // MARK: Downstream calls

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    guard let requested = lock.withLock({ state.request(demand) }) else { return }
    if gate.isHeld(by: ThreadID.current) {
      // From inside the subscriber: the upstreams' answers wait in their queues, and the
      // outermost pass delivers the tuples once the subscriber returns.
      askUpstreams(requested.calls, for: demand)
      if requested.ready { nestedWork = true }
      return
    }
    requested.calls.request(demand)
    if requested.ready { deliverPending() }
  }

  @inlinable
  func cancel() {
    let released = lock.withLock { Cancelled(state: state.cancel(), downstream: downstream.take()) }
    released.state.cancels.cancel()
  }  // the unpaired values, a pending completion and the subscriber are released here

  /// What `cancel()` takes out of the subscription, released after the lock.
  @usableFromInline
  struct Cancelled {
    /// What the state let go of.
    @usableFromInline let state: State.Released
    /// The subscriber, `nil` once ended.
    @usableFromInline let downstream: Downstream?

    @inlinable
    init(state: State.Released, downstream: Downstream?) {
      self.state = state
      self.downstream = downstream
    }
  }

  // MARK: Delivery

  /// Asks `calls`' upstreams for `demand` from inside the gate: what they send at once waits
  /// for the outermost pass.
  @inlinable
  func askUpstreams(_ calls: consuming CombiningCalls, for demand: Subscribers.Demand) {
    let outer = requestingUpstreams
    requestingUpstreams = true
    calls.request(demand)
    requestingUpstreams = outer
  }

  /// Delivers what was made deliverable: at once from the outermost pass through the gate,
  /// after the subscriber's call returns from a nested one.
  @inlinable
  func deliverPending() {
    gate.drain(as: ThreadID.current, drainAvailable) { nestedWork = true }
  }

  /// Delivers tuples while there is demand, then a pending completion; run only from the
  /// outermost pass through the gate, once the subscriber has its subscription.
  @inlinable
  func drainAvailable() {
    nestedWork = false
    while true {
      let step = lock.withLock { () -> DrainStep in
        guard started else { return .stop }
        // `downstream` is `nil` only once the state has ended, when there is no next step.
        switch state.nextStep() {
        case .value(let output):
          guard let downstream else { preconditionFailure("Zip: a tuple after the end") }
          return .value(output, downstream)
        case .completion(let completion, let cancels, let released):
          guard let downstream = downstream.take() else {
            preconditionFailure("Zip: a completion after the end")
          }
          return .completion(completion, downstream, cancels: cancels, released: released)
        case .stop:
          return .stop
        }
      }
      switch step {
      case .value(let output, let downstream):
        let more = downstream.receive(output)
        guard more > .none else { continue }
        lock.withLock { if state.demand != .unlimited { state.addReturned(more) } }
      case .completion(let completion, let downstream, let cancels, let released):
        _ = released
        downstream.receive(completion: completion)
        cancels.cancel()  // after the completion, as Combine
        return
      case .stop:
        return
      }
    }
  }
}

extension ZipInner: CustomReflectable {
  /// The subscriber (`nil` once the subscription ended and let go of it) and the demand not yet
  /// met; Combine's zip mirrors its internals, which StreamKit doesn't reproduce (INTENDED.md,
  /// I14).
  @usableFromInline
  var customMirror: Mirror {
    let (downstream, demand) = lock.withLock { (self.downstream, state.demand) }
    return Mirror(self, children: ["downstream": downstream as Any, "demand": demand])
  }
}
