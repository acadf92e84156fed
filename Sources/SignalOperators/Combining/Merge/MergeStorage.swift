public import StreamCore

/// The subscription shared by `Merge` … `Merge8` and `MergeMany`: one per downstream, with one
/// ``MergeSide`` subscriber per upstream.
///
/// The bookkeeping is ``MergeState``, changed only under `lock`. The subscriber is called only
/// through `gate` (``DeliveryGate``), as in Combine: a value is delivered on the thread its
/// upstream sent it on, a value from another thread waits for a delivery under way and is then
/// delivered on its own thread, and a value sent from inside the subscriber is delivered at
/// once, re-entrantly, when nothing is queued before it.
///
/// Whether a value goes down now or waits in the queue is decided inside the gate, under the
/// lock, so values leave in the order they took the gate and the queue keeps its order. What
/// waits (for demand, or behind an earlier value) is delivered by the thread that makes it
/// deliverable: a request from another thread, an upstream's completion, or, when that happens
/// inside a delivery, the outermost pass of the delivering thread after its own call returns
/// (`nestedWork`). So a request from inside `receive(_:)` never delivers from inside the call.
///
/// Demand, as Combine's: each request of the subscriber is forwarded, unchanged, to every
/// upstream that is subscribed and not done (one subscribed later is asked for the demand left
/// then); once the demand is unlimited, nothing more is forwarded. A value beyond the
/// subscriber's demand waits in the queue and goes down when demand arrives, so the subscriber
/// never gets more than it asked for. The demand a value's `receive(_:)` returns goes back only
/// to the upstream that sent it, as that upstream's `receive(_:)` returns; for a queued value the
/// drain delivers, it is only added to the subscriber's demand.
@usableFromInline
// Sendable: `state` and `downstream` are guarded by `lock`; `nestedWork` and
// `requestingUpstreams` by `gate`; the subscriber and the upstreams are called after the lock.
final class MergeStorage<Downstream: Subscriber>: @unchecked Sendable, Subscription {
  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  typealias State = MergeState<Output, Failure>

  // `@exclusivity(unchecked)` below: each such `var` is touched only under `lock`, or (the
  // flags said to be) only by the thread holding `gate`, whose lock makes access exclusive.
  @usableFromInline
  let lock = Lock()

  /// Held across every call to the subscriber.
  @usableFromInline
  let gate = DeliveryGate()

  /// The subscriber; `nil` once terminal. Guarded by `lock`: a delivery takes a copy under it.
  @usableFromInline
  @exclusivity(unchecked) var downstream: Downstream?

  /// Guarded by `lock`.
  @usableFromInline
  @exclusivity(unchecked) var state: State

  /// Set by a nested pass through the gate that left work for the outermost one (a request, a
  /// queued value or a completion made from inside the subscriber). Guarded by `gate`.
  @usableFromInline
  @exclusivity(unchecked) var nestedWork = false

  /// Set while the thread in the gate forwards a request made from inside the subscriber: a
  /// value an upstream sends from inside that request waits in the queue rather than going
  /// down from inside it. Guarded by `gate`.
  @usableFromInline
  @exclusivity(unchecked) var requestingUpstreams = false

  @usableFromInline
  init(downstream: Downstream, count: Int) {
    self.downstream = downstream
    state = State(count: count)
  }

  // MARK: Downstream

  /// Hands the downstream its subscription through the gate, then delivers what that allowed.
  @usableFromInline
  func start() {
    let me = ThreadID.current
    gate.enter(as: me) { outermost in
      lock.withLock { downstream }?.receive(subscription: self)
      if outermost { drain() }
    }
  }

  /// Whether upstreams still need subscribing.
  @usableFromInline
  var isClosed: Bool {
    lock.withLock { !state.isActive }
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    guard demand > .none else { return }  // Combine ignores request(.none) here
    let requested = lock.withLock { state.request(demand) }
    guard case .forward(var forward, let drains) = requested else { return }
    if gate.isHeld(by: ThreadID.current) {
      // From inside the subscriber: forwarded at once, as Combine does. What an upstream sends
      // from inside the request, and what the demand lets go down, waits for the outermost
      // pass, once the subscriber returns: nothing nests.
      let outer = requestingUpstreams
      requestingUpstreams = true
      while let upstream = lock.withLock({ state.nextUpstream(for: &forward) }) {
        upstream.request(demand)
      }
      requestingUpstreams = outer
      if drains { nestedWork = true }
      return
    }
    if drains { deliverPending() }  // the queued values go down first, as Combine's
    while let upstream = lock.withLock({ state.nextUpstream(for: &forward) }) {
      upstream.request(demand)
    }
  }

  @usableFromInline
  func cancel() {
    let taken = lock.withLock { () -> (State.Cancelled, Downstream?)? in
      guard let cancelled = state.cancel() else { return nil }
      return (cancelled, downstream.take())
    }
    guard let (cancelled, downstream) = taken else { return }
    for upstream in cancelled.cancels { upstream.cancel() }
    _ = downstream  // released after the lock, with the values and a failure not delivered
  }

  // MARK: Upstreams

  func receive(subscription: any Subscription, from index: Int) {
    let subscribed = lock.withLock { state.subscribed(subscription, at: index) }
    switch subscribed {
    case .cancel:
      subscription.cancel()
    case .keep:
      break
    case .request(let demand):
      subscription.request(demand)
    }
  }

  /// Delivers `input` from upstream `index` through the gate, or queues it.
  @inlinable
  func receive(_ input: Output, from index: Int) -> Subscribers.Demand {
    let me = ThreadID.current
    return gate.enter(as: me) { outermost in
      let taken = lock.withLock { () -> (Downstream, unlimited: Bool)? in
        let action =
          !outermost && requestingUpstreams
          ? state.queue(input, from: index) : state.receive(input, from: index)
        switch action {
        case .dropped:
          return nil
        case .queued:
          if !outermost { nestedWork = true }
          return nil
        case .deliver(let unlimited):
          // Set while the merge is active, which a value to deliver implies.
          return (downstream.unsafelyUnwrapped, unlimited)
        }
      }
      var giveBack = Subscribers.Demand.none
      if let (downstream, unlimited) = taken {
        let more = downstream.receive(input)
        if !unlimited {
          let delivers: Bool
          (giveBack, delivers) = lock.withLock { (state.delivered(more: more), state.hasDelivery) }
          if delivers { nestedWork = true }  // queued values the returned demand lets go down
        }
      }
      if outermost, nestedWork { drain() }
      return giveBack  // to this upstream only, as Combine
    }
  }

  func receive(completion: Subscribers.Completion<Failure>, from index: Int) {
    let completed = lock.withLock { state.complete(completion, at: index) }
    for upstream in completed.cancels { upstream.cancel() }
    if completed.delivers { deliverPending() }
    _ = completed  // the upstream's own subscription is released here
  }

  // MARK: Delivery

  /// Passes the gate to deliver what is pending; from inside a delivery on this thread, leaves
  /// it to the outermost pass.
  func deliverPending() {
    gate.drain(as: ThreadID.current, drain) { nestedWork = true }
  }

  /// Delivers what is queued while there is demand, then the completion, until nothing is left.
  /// Run only by the outermost pass through the gate.
  @usableFromInline
  func drain() {
    nestedWork = false
    while true {
      let step = lock.withLock { () -> (State.Step, Downstream?) in
        let step = state.nextStep()
        switch step {
        case .value: return (step, downstream)
        case .completion: return (step, downstream.take())
        case .stop: return (step, nil)
        }
      }
      switch step {
      case (.value(let input), let downstream?):
        let more = downstream.receive(input)
        lock.withLock { state.drained(more: more) }
      case (.completion(let completion, let dropped), let downstream):
        _ = dropped
        downstream?.receive(completion: completion)
        return
      case (.value, nil), (.stop, _):
        nestedWork = false
        return
      }
    }
  }
}
