package import StreamCore

/// The life of a time-based operator's subscription (`debounce`, `throttle`, `delay`,
/// `timeout`, `collect(.byTime…)`, Snail's `sample`), as data: one storage that each operator
/// drives with its own transitions over its `Live` state (what it keeps between values: a
/// pending value, a timer, a buffer). Every transition runs under the operator's lock and
/// returns what to do after it; the subscriber is called only by the thread that claimed the
/// outlet's drain.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --(the operator's own transitions)--> active
/// active --the upstream's completion, with something still scheduled--> completing
/// active / completing --the completion queued in the outlet--> finishing
/// active / completing / finishing --completion delivered / cancel()--> terminal
/// ```
///
/// What an operator keeps is its `Live` value in `active` and `completing`; the outlet (the
/// subscriber and the values due for it) lives in every case but the first and the last, so
/// dropping the state releases the subscriber.
package enum TimedState<Downstream: Subscriber, Live>: OutletState {
  package typealias Value = Downstream.Input
  package typealias Failure = Downstream.Failure

  /// Before the upstream's subscription arrives, with the operator's initial live state.
  case awaitingSubscription(Downstream, Live)
  /// Subscribed.
  case active(Active)
  /// The upstream completed; the completion waits for something scheduled (a held value's
  /// emission, a delayed value, the scheduled completion itself).
  case completing(Completing)
  /// The completion is in the outlet's queue, after any value still there.
  case finishing(DeliveryOutlet<Downstream>)
  /// Completed or cancelled: everything is released.
  case terminal

  /// What exists while subscribed.
  package struct Active {
    /// The subscriber's end.
    package var outlet: DeliveryOutlet<Downstream>
    /// The upstream's subscription.
    package var upstream: any Subscription
    /// What the operator keeps.
    package var live: Live
  }

  /// What exists between the upstream's completion and the moment it is queued.
  package struct Completing {
    /// The subscriber's end.
    package var outlet: DeliveryOutlet<Downstream>
    /// What the operator still keeps.
    package var live: Live
    /// The upstream's completion.
    package let completion: Subscribers.Completion<Failure>
  }

  /// What `cancel()` lets go of, released after the lock.
  package struct Cancelled {
    /// The upstream's subscription to cancel (`nil` once it completed).
    package let upstream: (any Subscription)?
    /// What the operator kept; its timers are the caller's to cancel.
    package let live: Live?
    /// The upstream's completion, not yet queued.
    package let completion: Subscribers.Completion<Failure>?
    /// The subscriber and the values it had not yet received.
    package let outlet: DeliveryOutlet<Downstream>.Released
  }

  /// The upstream's subscription while active.
  package var upstream: (any Subscription)? {
    guard case .active(let active) = self else { return nil }
    return active.upstream
  }

  /// Stores the upstream's subscription; returns the subscriber to hand this subscription to,
  /// or `nil` when the subscription must be cancelled (a second one, or after `cancel()`).
  /// `demand` starts the outlet's: `.unlimited` for operators that pass requests upstream.
  package mutating func receive(
    subscription: any Subscription,
    outletDemand demand: Subscribers.Demand = .none
  ) -> Downstream? {
    guard case .awaitingSubscription(let downstream, let live) = self else { return nil }
    self = .active(
      Active(outlet: DeliveryOutlet(downstream, demand: demand), upstream: subscription, live: live)
    )
    return downstream
  }

  /// Runs `body` on the active state, changed in place (moved out of the enum and back, so its
  /// buffers stay uniquely referenced); `otherwise` when not active.
  package mutating func updateActive<Result>(
    otherwise: Result,
    _ body: (inout Active) -> Result
  ) -> Result {
    guard case .active(var active) = self else { return otherwise }
    self = .terminal
    defer { self = .active(active) }
    return body(&active)
  }

  /// Runs `body` on the completing state, changed in place; `otherwise` in any other case.
  package mutating func updateCompleting<Result>(
    otherwise: Result,
    _ body: (inout Completing) -> Result
  ) -> Result {
    guard case .completing(var completing) = self else { return otherwise }
    self = .terminal
    defer { self = .completing(completing) }
    return body(&completing)
  }

  /// The upstream completed and something scheduled must run first: moves to `completing`,
  /// keeping the live state `body` leaves, and returns the active state as it was (its
  /// upstream to release, its timers to cancel). `nil` when not active.
  package mutating func complete(
    with completion: Subscribers.Completion<Failure>,
    keeping body: (inout Live) -> Void = { _ in }
  ) -> Active? {
    guard case .active(let active) = self else { return nil }
    var live = active.live
    body(&live)
    self = .completing(Completing(outlet: active.outlet, live: live, completion: completion))
    return active
  }

  /// What queueing the completion hands out.
  package struct Finished {
    /// Whether the caller claimed the drain and must run it.
    package var claimed = false
    /// The live state let go of; its timers are the caller's to cancel.
    package var live: Live?
    /// The upstream's subscription, if it was still held (released: it completed).
    package var upstream: (any Subscription)?
  }

  /// Queues `completion` after the outlet's values and moves to `finishing`, from `active` or
  /// `completing`; what it lets go of is released after the lock.
  package mutating func finish(_ completion: Subscribers.Completion<Failure>) -> Finished {
    switch self {
    case .active(var active):
      self = .terminal
      let claimed = active.outlet.queue.finish(completion)
      self = .finishing(active.outlet)
      return Finished(claimed: claimed, live: active.live, upstream: active.upstream)
    case .completing(var completing):
      self = .terminal
      let claimed = completing.outlet.queue.finish(completion)
      self = .finishing(completing.outlet)
      return Finished(claimed: claimed, live: completing.live)
    case .awaitingSubscription, .finishing, .terminal:
      return Finished()
    }
  }

  /// Queues the completion the upstream sent, from `completing`; see ``finish(_:)``.
  package mutating func finishCompleting() -> Finished {
    guard case .completing(let completing) = self else { return Finished() }
    return finish(completing.completion)
  }

  /// Runs `body` on the outlet of the current case; `nil` when it has none.
  package mutating func withOutlet<Result>(
    _ body: (inout DeliveryOutlet<Downstream>) -> Result
  ) -> Result? {
    switch self {
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      return body(&active.outlet)
    case .completing(var completing):
      self = .terminal
      defer { self = .completing(completing) }
      return body(&completing.outlet)
    case .finishing(var outlet):
      self = .terminal
      defer { self = .finishing(outlet) }
      return body(&outlet)
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Becomes terminal.
  package mutating func end() { self = .terminal }

  /// Ends everything; `nil` when there is nothing to end (before the subscription, the
  /// subscriber can't cancel).
  package mutating func cancel() -> Cancelled? {
    switch self {
    case .active(var active):
      self = .terminal
      return Cancelled(
        upstream: active.upstream,
        live: active.live,
        completion: nil,
        outlet: active.outlet.cancel()
      )
    case .completing(var completing):
      self = .terminal
      return Cancelled(
        upstream: nil,
        live: completing.live,
        completion: completing.completion,
        outlet: completing.outlet.cancel()
      )
    case .finishing(var outlet):
      self = .terminal
      return Cancelled(upstream: nil, live: nil, completion: nil, outlet: outlet.cancel())
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// The subscriber, its demand not yet met and the live state, for a subscription's mirror;
  /// `nil` for the subscriber once released.
  package var snapshot: (downstream: Downstream?, demand: Subscribers.Demand, live: Live?) {
    switch self {
    case .awaitingSubscription(let downstream, let live): (downstream, .none, live)
    case .active(let active): (active.outlet.downstream, active.outlet.queue.demand, active.live)
    case .completing(let completing):
      (completing.outlet.downstream, completing.outlet.queue.demand, completing.live)
    case .finishing(let outlet): (outlet.downstream, outlet.queue.demand, nil)
    case .terminal: (nil, .none, nil)
    }
  }
}
