public import StreamCore

/// The state of `switchToLatest`'s subscription, as data: each transition is a `mutating`
/// function called under the subscription's lock that returns the ``Action`` to perform after
/// it, so every transition can be tested without threads.
///
/// ```
/// active --upstream sends a publisher--> active (generation += 1; the current inner is
///   cancelled; the new one is subscribed and asked for the demand left)
/// active --inner value (current generation, within demand)--> active (one demand taken; the
///   caller delivers it at once, inside the gate)
/// active --upstream finished, no inner / inner finished, upstream finished--> completing
/// active --any failure--> completing (the rest cancelled)
/// completing --nextCompletion() hands out the completion--> ended
/// active / completing --cancel()--> ended (everything released, nothing more delivered)
/// ```
///
/// The demand and the completion are kept in a gated ``DeliveryQueue``; values never wait in
/// it, as in Combine, which has no buffer here: inside the gate, nothing is ahead of a value.
@usableFromInline
struct SwitchToLatestState<Value, Failure: Error> {
  /// Where the subscription is in its life.
  @usableFromInline
  enum Phase {
    /// Inner publishers come and go; see ``Active``.
    case active(Active)
    /// The completion is in `queue`; nothing more is accepted.
    case completing
    /// Cancelled, or the completion was handed out.
    case ended
  }

  /// What exists while the subscription is active.
  @usableFromInline
  struct Active {
    /// The upstream, the publisher of publishers.
    @usableFromInline
    var upstream = Upstream.awaitingSubscription
    /// The current inner publisher.
    @usableFromInline
    var current = Current.none
    /// The current inner publisher's number; events of older ones are ignored.
    @usableFromInline
    var generation = 0

    @inlinable
    init() {}
  }

  /// The upstream's life.
  @usableFromInline
  enum Upstream {
    case awaitingSubscription
    case subscribed(any Subscription)
    case finished
  }

  /// The current inner publisher's life.
  @usableFromInline
  enum Current {
    /// No inner publisher, or the last one finished.
    case none
    /// Subscribed to, its subscription not yet received.
    case awaitingSubscription
    case subscribed(any Subscription)
  }

  /// What to do after the lock; dropping it releases what the transition took out.
  @usableFromInline
  struct Action {
    /// Subscriptions to cancel.
    @usableFromInline
    var cancel = CombiningCalls()
    /// A subscription to ask for `demand`.
    @usableFromInline
    var request: (any Subscription)?
    /// The demand to ask `request` for.
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// The generation of the inner publisher to subscribe.
    @usableFromInline
    var subscribe: Int?
    /// Something is deliverable: the caller passes the gate and drains.
    @usableFromInline
    var drains = false
    /// What the transition took out of the state, released when the action is dropped.
    @usableFromInline
    var released = Released()

    @inlinable
    init() {}
  }

  /// What a transition took out of the state, to release after the lock without calling it.
  @usableFromInline
  struct Released {
    /// A subscription whose publisher ended.
    @usableFromInline
    var subscription: (any Subscription)?
    /// Values dropped by a switch or a cancel.
    @usableFromInline
    var values = RingBuffer<Value>()
    /// A completion dropped by a cancel.
    @usableFromInline
    var completion: Subscribers.Completion<Failure>?

    @inlinable
    init() {}
  }

  @usableFromInline
  var phase = Phase.active(Active())
  @usableFromInline
  var queue = DeliveryQueue<Value, Failure>(failureOrder: .afterDemandedValues, gated: true)

  @inlinable
  init() {}

  /// Demand not yet delivered: what the current inner may send.
  @usableFromInline
  var outstandingDemand: Subscribers.Demand { queue.demand }

  // MARK: Upstream

  /// The upstream's subscription arrived; a second one, or one after the end, is cancelled.
  @inlinable
  mutating func upstreamSubscribed(_ subscription: any Subscription) -> Action {
    var action = Action()
    guard case .active(var active) = phase, case .awaitingSubscription = active.upstream else {
      action.cancel.append(subscription)
      return action
    }
    active.upstream = .subscribed(subscription)
    phase = .active(active)
    action.request = subscription
    action.demand = .unlimited
    return action
  }

  /// The upstream sent a new inner publisher: the current one is replaced.
  @inlinable
  mutating func switchInner() -> Action {
    var action = Action()
    // A value after the upstream's `.finished` breaks the protocol: ignored, as Combine.
    guard case .active(var active) = phase else { return action }
    if case .finished = active.upstream { return action }
    if case .subscribed(let replaced) = active.current { action.cancel.append(replaced) }
    active.generation += 1
    active.current = .awaitingSubscription
    phase = .active(active)
    action.released.values = queue.values.takeAll()  // their demand stays for the new inner
    action.subscribe = active.generation
    return action
  }

  /// The upstream finished.
  @inlinable
  mutating func upstreamFinished() -> Action {
    var action = Action()
    guard case .active(var active) = phase else { return action }
    if case .subscribed(let upstream) = active.upstream { action.released.subscription = upstream }
    active.upstream = .finished
    phase = .active(active)
    finishIfIdle(active, &action)
    return action
  }

  /// The upstream (`generation == nil`) or the inner of `generation` failed; a replaced inner's
  /// failure is ignored.
  @inlinable
  mutating func fail(_ error: Failure, generation: Int?) -> Action {
    var action = Action()
    guard case .active(let active) = phase else { return action }
    if let generation, generation != active.generation { return action }
    phase = .completing
    let upstream: (any Subscription)?
    if case .subscribed(let subscription) = active.upstream {
      upstream = subscription
    } else {
      upstream = nil
    }
    let current: (any Subscription)?
    if case .subscribed(let subscription) = active.current {
      current = subscription
    } else {
      current = nil
    }
    // The failing side is released; the other is cancelled.
    let (failing, other) = generation == nil ? (upstream, current) : (current, upstream)
    action.released.subscription = failing
    if let other { action.cancel.append(other) }
    action.drains = queue.finish(.failure(error))
    return action
  }

  // MARK: Inner publishers

  /// The inner of `generation` sent its subscription; it is asked for the outstanding demand.
  @inlinable
  mutating func innerSubscribed(_ generation: Int, _ subscription: any Subscription) -> Action {
    var action = Action()
    guard case .active(var active) = phase, active.generation == generation,
      case .awaitingSubscription = active.current
    else {
      action.cancel.append(subscription)
      return action
    }
    active.current = .subscribed(subscription)
    phase = .active(active)
    let demand = outstandingDemand
    if demand > .none {
      action.request = subscription
      action.demand = demand
    }
    return action
  }

  /// Whether a value from the inner of `generation` would go beyond the demand asked of it:
  /// it is current and the downstream's demand is used up (the caller traps, as Combine).
  @inlinable
  func isBeyondDemand(_ generation: Int) -> Bool {
    guard case .active(let active) = phase, active.generation == generation else { return false }
    return outstandingDemand == .none
  }

  /// Whether the inner of `generation` is current and has not sent its subscription yet (a
  /// completion from it now breaks the protocol; the caller traps, as Combine).
  @inlinable
  func isAwaitingSubscription(_ generation: Int) -> Bool {
    guard case .active(let active) = phase, active.generation == generation,
      case .awaitingSubscription = active.current
    else { return false }
    return true
  }

  /// The inner of `generation` sent a value, and the caller is inside the gate: `true` when it
  /// is current and within demand, with one demand taken, and the caller delivers it now, as
  /// Combine does (a value never waits in `queue`: inside the gate nothing is ahead of it);
  /// `false` when it is dropped.
  @inlinable
  mutating func innerValue(_ generation: Int) -> Bool {
    guard case .active(let active) = phase, active.generation == generation,
      outstandingDemand > .none
    else { return false }
    queue.demand -= 1
    return true
  }

  /// The downstream returned `more` for a value delivered at once: added to the demand (the
  /// caller gives it to the inner that sent the value).
  @inlinable
  mutating func delivered(adding more: Subscribers.Demand) {
    queue.demand += more
  }

  /// The inner of `generation` finished.
  @inlinable
  mutating func innerFinished(_ generation: Int) -> Action {
    var action = Action()
    guard case .active(var active) = phase, active.generation == generation else { return action }
    if case .subscribed(let current) = active.current { action.released.subscription = current }
    active.current = .none
    phase = .active(active)
    finishIfIdle(active, &action)
    return action
  }

  /// Queues `.finished` if the upstream and the current inner have both finished.
  @inlinable
  mutating func finishIfIdle(_ active: Active, _ action: inout Action) {
    guard case .finished = active.upstream, case .none = active.current else { return }
    phase = .completing
    action.drains = queue.finish(.finished)
  }

  // MARK: Downstream

  /// The downstream asked for more: forwarded to the current inner.
  @inlinable
  mutating func request(_ demand: Subscribers.Demand) -> Action {
    var action = Action()
    switch phase {
    case .active(let active):
      action.drains = queue.request(demand)
      if case .subscribed(let current) = active.current {
        action.request = current
        action.demand = demand
      }
    case .completing:
      action.drains = queue.request(demand)
    case .ended:
      break
    }
    return action
  }

  /// The downstream cancelled: everything is released, nothing more is delivered.
  @inlinable
  mutating func cancel() -> Action {
    var action = Action()
    if case .active(let active) = phase {
      // The current inner first, then the upstream, as Combine.
      if case .subscribed(let current) = active.current { action.cancel.append(current) }
      if case .subscribed(let upstream) = active.upstream { action.cancel.append(upstream) }
    }
    phase = .ended
    let remains = queue.cancel()
    action.released.values = remains.values
    action.released.completion = remains.completion
    return action
  }

  /// The completion, once it is due: the state ends with it. `nil` otherwise.
  @inlinable
  mutating func nextCompletion() -> Subscribers.Completion<Failure>? {
    // Values never wait in the queue (see `innerValue(_:)`): its only step is the completion.
    guard case .completion(let completion, _)? = queue.nextStep() else { return nil }
    phase = .ended
    return completion
  }
}
