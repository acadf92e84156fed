public import StreamCore

/// The state of `merge`'s subscription, as data, for every arity and `MergeMany`: each
/// transition is a `mutating` function called under ``MergeStorage``'s lock, returning what to
/// do after it, so every transition can be tested without threads.
///
/// ```
/// active --the last upstream finishes--> finishing (the queue drains, then .finished)
/// active --an upstream fails--> failing(error) (queued values go first while there is demand,
///   the rest are dropped; the failure doesn't wait for demand)
/// finishing / failing --nextStep() hands out the completion--> terminal
/// active / finishing / failing --cancel()--> terminal (everything released, nothing delivered)
/// ```
///
/// Each upstream has a ``Slot``:
///
/// ```
/// awaitingSubscription --subscribed, demand unlimited or > 0--> asked(.unlimited / .max(1))
/// awaitingSubscription --subscribed, no demand--> idle
/// asked(.max(1)) --its value arrives--> waiting --the value went down, demand > 0--> asked(.max(1))
/// waiting --the value went down, no demand--> idle --demand arrives--> asked(.max(1))
/// asked / waiting / idle --demand becomes unlimited--> asked(.unlimited)
/// any --it completes, another fails, or cancel()--> done
/// ```
///
/// Neither ``Slot`` nor anything the per-value transition (``receive(_:from:)``) switches
/// over carries a reference: matching a case that carries an existential copies it, a retain and
/// a release per value (`Docs/Internals.md`, "Inlining and exclusivity"). So the upstreams'
/// subscriptions sit beside the slots in ``subscriptions`` (one exists exactly while its slot is
/// `asked`, `waiting` or `idle`), and the per-value transition looks at the slot, not at
/// ``phase``: every slot is `done` in every phase but `active`. Off the per-value path, the
/// pending failure is carried by ``Phase/failing(_:)``.
///
/// What is not here: the subscriber and the delivery gate, which sit in ``MergeStorage``. Every
/// transition that can make something deliverable is called by a thread inside the gate, or
/// says so (``hasDelivery``, ``Completed/delivers``) so that its caller passes the gate.
@usableFromInline
struct MergeState<Output, Failure: Error> {
  /// Where the subscription is in its life, and the completion waiting in it.
  @usableFromInline
  enum Phase {
    /// Upstreams send; values go down as demand allows.
    case active
    /// Every upstream finished: the queued values go down as demand allows, then `.finished`.
    case finishing
    /// An upstream failed with this error: the queued values the demand covers go down first,
    /// then the failure; the rest are dropped.
    case failing(Failure)
    /// Completed or cancelled: nothing is held.
    case terminal
  }

  /// One upstream's progress. Reference-free: its subscription is in ``subscriptions``.
  @usableFromInline
  enum Slot: Equatable {
    /// Not subscribed yet.
    case awaitingSubscription
    /// Asked for this many values not yet received (`.max(1)` while the subscriber's demand is
    /// limited, `.unlimited` once it is unlimited).
    case asked(Subscribers.Demand)
    /// Its value (the one it was asked for) waits in the queue or is being delivered; it is
    /// asked again once that value has gone down.
    case waiting
    /// Its value went down and there was no demand to ask for another: listed in `idle`.
    case idle
    /// Completed, cancelled, or cancelled because another failed; its subscription is gone.
    case done
  }

  /// A value waiting for demand or for the thread delivering, with the upstream it came from.
  @usableFromInline
  struct Queued {
    /// The value.
    @usableFromInline let value: Output
    /// The upstream that sent it.
    @usableFromInline let index: Int

    @inlinable
    init(value: Output, index: Int) {
      self.value = value
      self.index = index
    }
  }

  /// What an upstream's subscription leads to.
  enum Subscribed: Equatable {
    /// Cancel it: a second one for its slot, or one after the end.
    case cancel
    /// Keep it; nothing to request until there is demand.
    case keep
    /// Keep it and request this from it.
    case request(Subscribers.Demand)
  }

  /// What a value arriving inside the gate leads to.
  @usableFromInline
  enum ValueAction: Equatable {
    /// Ignored: its upstream is done, or sent more than it was asked for.
    case dropped
    /// Queued behind earlier values, or until there is demand.
    case queued
    /// One demand is taken: the caller delivers the value itself, then (unless the demand is
    /// `unlimited`, where nothing changes) books the subscriber's answer with
    /// ``delivered(from:more:canGiveBack:)``.
    case deliver(unlimited: Bool)
  }

  /// What an upstream's completion leads to, performed after the lock.
  struct Completed {
    /// The upstream's own subscription, released (not cancelled) after the lock.
    var released: (any Subscription)?
    /// The other upstreams, to cancel after the lock (after a failure).
    var cancels: [any Subscription] = []
    /// The completion is now pending: the caller passes the gate and runs the drain.
    var delivers = false
  }

  /// What `cancel()` took out of the state, cancelled or released after the lock.
  struct Cancelled {
    /// The upstreams, to cancel.
    var cancels: [any Subscription] = []
    /// The values not delivered.
    var dropped = RingBuffer<Queued>()
    /// A failure not delivered.
    var failure: Failure?
  }

  /// One step of the drain, for the thread inside the gate, performed after the lock.
  enum Step {
    /// Deliver a queued value (its demand is taken), then book the answer with
    /// ``delivered(from:more:canGiveBack:)``.
    case value(Output, from: Int)
    /// Deliver the completion and let go of the subscriber; release `dropped`, the values
    /// the demand didn't cover. The state is terminal.
    case completion(Subscribers.Completion<Failure>, dropped: RingBuffer<Queued>)
    /// Ask an upstream for values.
    case request(any Subscription, Subscribers.Demand)
    /// Nothing to do, or terminal.
    case stop
  }

  /// The phase.
  @usableFromInline
  var phase: Phase
  /// Each upstream's progress, by index.
  @usableFromInline
  var slots: [Slot]
  /// Each upstream's subscription, by index: set exactly while its slot is `asked`, `waiting`
  /// or `idle`.
  var subscriptions: [(any Subscription)?]
  /// Requested by the subscriber and not yet delivered.
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// Values waiting for demand or behind an earlier value; while demand is limited, at most
  /// one per upstream.
  @usableFromInline
  var queue = RingBuffer<Queued>()
  /// Upstreams to ask for a value once there is demand (their slots are `idle`; an index whose
  /// slot has moved on since is skipped).
  @usableFromInline
  var idle: [Int] = []
  /// How many upstreams have finished. A count rather than a scan of `slots`, so the last
  /// finish is seen in O(1) (`MergeMany` may merge many).
  var finishedCount = 0
  /// The next slot to ask for `.unlimited` once demand is unlimited: each is asked once, in
  /// order, one drain step each.
  var unlimitedCursor = 0

  /// A state for `count` upstreams, none subscribed yet; with none, it is finishing at once.
  init(count: Int) {
    phase = count == 0 ? .finishing : .active
    slots = Array(repeating: .awaitingSubscription, count: count)
    subscriptions = Array(repeating: nil, count: count)
  }

  /// Whether upstreams are still taken in (neither completed, failing, nor cancelled).
  var isActive: Bool {
    if case .active = phase { return true }
    return false
  }

  /// Whether the subscription completed or was cancelled.
  @inlinable
  var isTerminal: Bool {
    if case .terminal = phase { return true }
    return false
  }

  /// Whether the drain has something to deliver: a queued value and demand for it, or a
  /// completion.
  var hasDelivery: Bool {
    switch phase {
    case .active: return demand > .none && !queue.isEmpty
    case .finishing: return demand > .none || queue.isEmpty
    case .failing: return true
    case .terminal: return false
    }
  }

  // MARK: Transitions

  /// Upstream `index` sent its subscription.
  mutating func subscribed(_ subscription: any Subscription, at index: Int) -> Subscribed {
    // Only `active` has slots awaiting a subscription.
    guard case .awaitingSubscription = slots[index] else { return .cancel }
    subscriptions[index] = subscription
    if demand == .unlimited {
      slots[index] = .asked(.unlimited)
      return .request(.unlimited)
    }
    if demand > .none {
      slots[index] = .asked(.max(1))
      return .request(.max(1))
    }
    slots[index] = .idle
    idle.append(index)
    return .keep
  }

  /// The subscriber asked for `more`: returns whether the drain must run (to deliver queued
  /// values, ask upstreams, or deliver a completion); `false` once terminal.
  mutating func request(_ more: Subscribers.Demand) -> Bool {
    if isTerminal { return false }
    demand += more
    return true
  }

  /// Upstream `index` sent `value`, and its thread is inside the gate. It is delivered by the
  /// caller if nothing is queued and there is demand; otherwise queued. Values from a done
  /// upstream, or beyond what the upstream was asked for, are dropped.
  @inlinable
  mutating func receive(_ value: Output, from index: Int) -> ValueAction {
    // Per value: switches only over the reference-free slot (see the type's comment).
    switch slots[index] {
    case .asked(let asked):
      if asked != .unlimited {
        slots[index] = asked == .max(1) ? .waiting : .asked(asked - 1)
      }
    case .awaitingSubscription, .waiting, .idle, .done:
      return .dropped
    }
    if demand > .none, queue.isEmpty {
      if demand == .unlimited { return .deliver(unlimited: true) }
      demand -= 1
      return .deliver(unlimited: false)
    }
    queue.append(Queued(value: value, index: index))
    return .queued
  }

  /// A value from upstream `index` went down and the subscriber returned `more`. Books the
  /// demand and decides whether that upstream is asked for another: through the return value
  /// of its `receive` when `canGiveBack` (returns `true`), else later by the drain.
  @inlinable
  mutating func delivered(
    from index: Int,
    more: Subscribers.Demand,
    canGiveBack: Bool
  ) -> Bool {
    if more > .none, !isTerminal { demand += more }
    guard case .waiting = slots[index], demand != .unlimited else { return false }
    if canGiveBack, demand > .none {
      slots[index] = .asked(.max(1))
      return true
    }
    slots[index] = .idle
    idle.append(index)
    return false
  }

  /// Upstream `index` completed. The last `.finished` starts finishing; a failure starts
  /// failing and takes the other upstreams to cancel: values already queued were sent before
  /// it, so they go down first while there is demand.
  mutating func complete(
    _ completion: Subscribers.Completion<Failure>,
    at index: Int
  ) -> Completed {
    var action = Completed()
    // Every slot is done in every phase but `active`.
    guard slots[index] != .done else { return action }
    slots[index] = .done
    action.released = subscriptions[index].take()
    switch completion {
    case .finished:
      finishedCount += 1
      guard finishedCount == slots.count else { return action }
      phase = .finishing
    case .failure(let error):
      phase = .failing(error)
      action.cancels = takeSubscriptions()
    }
    action.delivers = true
    return action
  }

  /// The subscriber cancelled: returns what to cancel and release, or `nil` once terminal.
  mutating func cancel() -> Cancelled? {
    var cancelled = Cancelled()
    switch phase {
    case .terminal:
      return nil
    case .failing(let error):
      cancelled.failure = error
    case .active, .finishing:
      break
    }
    phase = .terminal
    cancelled.cancels = takeSubscriptions()
    cancelled.dropped = queue.takeAll()
    return cancelled
  }

  /// The drain's next step: queued values while there is demand, then a completion (a failure
  /// without waiting for demand), then requests to upstreams; `.stop` when nothing is left.
  mutating func nextStep() -> Step {
    // The queue is empty once terminal, so the common case needs no look at the phase.
    if demand > .none, let queued = queue.popFirst() {
      demand -= 1
      return .value(queued.value, from: queued.index)
    }
    switch phase {
    case .active:
      if let (upstream, demand) = nextRequest() { return .request(upstream, demand) }
    case .finishing:
      if queue.isEmpty {
        phase = .terminal
        return .completion(.finished, dropped: RingBuffer())
      }
    case .failing(let error):
      // The queue is empty or there is no demand: a failure doesn't wait for it.
      phase = .terminal
      return .completion(.failure(error), dropped: queue.takeAll())
    case .terminal:
      break
    }
    return .stop
  }

  // MARK: Helpers

  /// The next upstream request: `.unlimited` to each upstream once demand is unlimited, else
  /// `.max(1)` to an idle upstream while there is demand.
  mutating func nextRequest() -> (any Subscription, Subscribers.Demand)? {
    if demand == .unlimited {
      while unlimitedCursor < slots.count {
        let index = unlimitedCursor
        unlimitedCursor += 1
        switch slots[index] {
        case .asked(.unlimited), .awaitingSubscription, .done:
          continue
        case .asked, .waiting, .idle:
          guard let subscription = subscriptions[index] else { continue }
          slots[index] = .asked(.unlimited)
          return (subscription, .unlimited)
        }
      }
      return nil
    }
    while demand > .none, let index = idle.popLast() {
      guard case .idle = slots[index], let subscription = subscriptions[index] else { continue }
      slots[index] = .asked(.max(1))
      return (subscription, .max(1))
    }
    return nil
  }

  /// Marks every upstream not yet done as done and takes their subscriptions, to cancel after
  /// the lock.
  mutating func takeSubscriptions() -> [any Subscription] {
    var taken: [any Subscription] = []
    for index in slots.indices where slots[index] != .done {
      slots[index] = .done
      if let subscription = subscriptions[index].take() { taken.append(subscription) }
    }
    idle = []  // indices only
    return taken
  }
}
