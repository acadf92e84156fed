import Observation
import StreamCore

/// What a registration's handler reports to the subscription that made it.
protocol TrackingOwner: AnyObject, Sendable {
  /// A property the read of `generation` touched is about to change.
  func trackingChanged(_ generation: UInt64)
  /// The registration of `generation` was let go without a change: its models are gone, or
  /// the read touched no observable property.
  func trackingDropped(_ generation: UInt64)
}

/// The handler one read leaves with Observation. Observation keeps it until the first change
/// (then calls it) or until the models it watches are deallocated; either way it is released,
/// and a release without a call means nothing that read touched can change any more.
final class ChangeToken: Sendable {
  private let generation: UInt64
  // Weak: a model keeps its handlers until its next change, which must not keep the
  // subscription (and through it the subscriber) alive after cancel.
  private weak let owner: (any TrackingOwner)?

  init(owner: any TrackingOwner, generation: UInt64) {
    self.owner = owner
    self.generation = generation
  }

  func fire() {
    owner?.trackingChanged(generation)
  }

  deinit {
    // After `fire()` the owner has already moved past this generation and ignores this.
    owner?.trackingDropped(generation)
  }
}

/// The subscription of an ``ObservationTrackingPublisher``: one read per scheduler turn, a turn
/// scheduled when something changed and the subscriber has demand.
///
/// Not a `SerialDrain`: nothing is queued (a change is a flag, read when there is demand), and a
/// turn must never loop to read again, since a change reported on another thread may not be
/// stored yet; the next read is always a new turn. `turnPending` is the one-deliverer claim.
// Sendable: the mutable state is guarded by `lock`. `read` and the downstream are called only
// from a turn, after the lock, and turns run one at a time (`turnPending` is set from the
// scheduling of a turn until its end), each on the thread `scheduler` runs it on.
final class ObservationTrackingSubscription<Downstream: Subscriber, Context: Scheduler>:
  // Sendable: state guarded by `lock`, calls made after it, one turn at a time (above).
  Subscription, TrackingOwner, @unchecked Sendable, CustomStringConvertible
where Downstream.Failure == Never {
  typealias Output = Downstream.Input

  /// ```
  /// active --request / change, with demand and a change unread--> active (turn scheduled)
  /// active --turn--> active (read, track, deliver one value)
  /// active --registration dropped / read found no model--> terminal (.finished delivered)
  /// active --cancel()--> terminal
  /// ```
  private enum State {
    case active(Active)
    case terminal
  }

  private struct Active {
    var downstream: Downstream
    var read: () -> Output?
    var demand = Subscribers.Demand.none
    /// Something changed since the last read; true at first, when the current value is owed.
    var stale = true
    /// A turn is scheduled or running; no other is scheduled meanwhile.
    var turnPending = false
    /// Nothing tracked can change any more: finish at the next turn, without demand.
    var sourceGone = false
    /// The generation of the last read.
    var generation: UInt64 = 0
    /// The generation whose registration hasn't fired yet, if any.
    var liveGeneration: UInt64?
  }

  /// What the lock lets go of at the end, released after it.
  private struct Released {
    let downstream: Downstream
    let read: () -> Output?
  }

  private enum TurnStart {
    case idle
    case read(() -> Output?, generation: UInt64)
    case finish(Released)
  }

  private enum TurnEnd {
    case idle
    case scheduleTurn
    case finish(Released)
  }

  private let lock = Lock()
  private var state: State
  private let scheduler: Context
  private let options: Context.SchedulerOptions?

  init(
    downstream: Downstream,
    read: @escaping () -> Output?,
    scheduler: Context,
    options: Context.SchedulerOptions?
  ) {
    state = .active(Active(downstream: downstream, read: read))
    self.scheduler = scheduler
    self.options = options
  }

  var description: String { "ObservationTracking" }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let schedule = lock.withLock { () -> Bool in
      guard case .active(var active) = state else { return false }
      active.demand += demand
      let schedule = active.stale && !active.turnPending
      if schedule { active.turnPending = true }
      state = .active(active)
      return schedule
    }
    if schedule { scheduleTurn() }
  }

  func cancel() {
    let released = lock.withLock { () -> Released? in
      guard case .active(let active) = state else { return nil }
      state = .terminal
      return Released(downstream: active.downstream, read: active.read)
    }
    withExtendedLifetime(released) {}  // the subscriber and the closure, after the lock
  }

  func trackingChanged(_ generation: UInt64) {
    let schedule = lock.withLock { () -> Bool in
      guard case .active(var active) = state, active.liveGeneration == generation else {
        return false
      }
      active.liveGeneration = nil
      active.stale = true
      let schedule = active.demand > .none && !active.turnPending
      if schedule { active.turnPending = true }
      state = .active(active)
      return schedule
    }
    if schedule { scheduleTurn() }
  }

  func trackingDropped(_ generation: UInt64) {
    let schedule = lock.withLock { () -> Bool in
      guard case .active(var active) = state, active.liveGeneration == generation else {
        return false
      }
      active.liveGeneration = nil
      active.sourceGone = true
      let schedule = !active.turnPending
      active.turnPending = true
      state = .active(active)
      return schedule
    }
    if schedule { scheduleTurn() }
  }

  private func scheduleTurn() {
    // Weak: a turn still queued on a scheduler (a `TestScheduler` nobody advances) must not
    // keep a cancelled subscription alive.
    scheduler.schedule(options: options) { [weak self] in self?.runTurn() }
  }

  /// Reads, tracks what the read touched, and delivers the value; runs on `scheduler`.
  private func runTurn() {
    let value: Output?
    switch lock.withLock({ beginTurn() }) {
    case .idle:
      return
    case .finish(let released):
      released.downstream.receive(completion: .finished)
      return
    case .read(let read, let generation):
      // The token's only other owner is Observation: when the read tracked nothing, it is
      // released here, at the end of this scope, and reports the drop before the turn ends.
      do {
        let token = ChangeToken(owner: self, generation: generation)
        value = withObservationTracking({ read() }, onChange: { token.fire() })
      }
    }
    var more = Subscribers.Demand.none
    if let value {
      guard let downstream = lock.withLock({ takeDemand() }) else { return }
      more = downstream.receive(value)
    }
    switch lock.withLock({ endTurn(more: more, sourceGone: value == nil) }) {
    case .idle:
      break
    case .scheduleTurn:
      // Never read again in this turn: a change reported from another thread may not be
      // stored yet. A later turn reads after it.
      scheduleTurn()
    case .finish(let released):
      released.downstream.receive(completion: .finished)
    }
  }

  // MARK: Transitions (called under `lock`)

  private func beginTurn() -> TurnStart {
    guard case .active(var active) = state else { return .idle }
    if active.sourceGone {
      state = .terminal
      return .finish(Released(downstream: active.downstream, read: active.read))
    }
    guard active.stale, active.demand > .none else {
      active.turnPending = false
      state = .active(active)
      return .idle
    }
    active.stale = false
    active.generation &+= 1
    active.liveGeneration = active.generation
    state = .active(active)
    return .read(active.read, generation: active.generation)
  }

  /// The downstream, with one demand taken, or `nil` once cancelled.
  private func takeDemand() -> Downstream? {
    guard case .active(var active) = state else { return nil }
    active.demand -= 1  // a turn reads only with demand, and only turns take it
    state = .active(active)
    return active.downstream
  }

  private func endTurn(more: Subscribers.Demand, sourceGone: Bool) -> TurnEnd {
    guard case .active(var active) = state else { return .idle }
    active.demand += more
    if sourceGone || active.sourceGone {
      state = .terminal
      return .finish(Released(downstream: active.downstream, read: active.read))
    }
    guard active.stale, active.demand > .none else {
      active.turnPending = false
      state = .active(active)
      return .idle
    }
    state = .active(active)
    return .scheduleTurn
  }
}
