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
/// awaitingSubscription --subscribed--> subscribed(after: requests so far) (asked for the demand
///   the subscriber has then, if any)
/// any --it completes, another fails, or cancel()--> done
/// ```
///
/// Demand, as Combine's: each request of the subscriber is forwarded, unchanged, to every
/// upstream subscribed before it and not done (until the demand is unlimited, after which a
/// request changes nothing); values beyond the subscriber's demand wait in the queue, first in,
/// first out. The demand a value's `receive(_:)` returns is added to the subscriber's and goes
/// back to the upstream that sent it only, as the return value of its `receive(_:)`; for a
/// queued value the drain delivers, it is added to the subscriber's demand only.
///
/// Neither ``Slot`` nor anything the per-value transition (``receive(_:from:)``) switches
/// over carries a reference: matching a case that carries an existential copies it, a retain and
/// a release per value (`Docs/Internals.md`, "Inlining and exclusivity"). So the upstreams'
/// subscriptions sit beside the slots in ``subscriptions`` (one exists exactly while its slot is
/// `subscribed`), and the per-value transition looks at the slot, not at ``phase``: every slot
/// is `done` in every phase but `active`. Off the per-value path, the pending failure is carried
/// by ``Phase/failing(_:)``.
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
    /// Subscribed once the subscriber had made this many requests: it was asked for the demand
    /// those left, and is forwarded every later one.
    case subscribed(after: Int)
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

  /// A request of the subscriber, to forward to every upstream subscribed before it.
  struct Forward: Equatable {
    /// The demand requested.
    var demand: Subscribers.Demand
    /// Its place among the subscriber's requests, from 1.
    var number: Int
    /// The next upstream to look at.
    var next = 0
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

  /// What a request of the subscriber leads to.
  enum Requested: Equatable {
    /// Nothing: the subscription ended, or the demand was unlimited already.
    case ignored
    /// Deliver what is queued first if `drains` (the demand lets it go down), then forward
    /// `forward` with ``nextUpstream(for:)``.
    case forward(Forward, drains: Bool)
  }

  /// What a value arriving inside the gate leads to.
  @usableFromInline
  enum ValueAction: Equatable {
    /// Ignored: its upstream is done.
    case dropped
    /// Queued behind earlier values, or until there is demand.
    case queued
    /// One demand is taken: the caller delivers the value itself, then (unless the demand is
    /// `unlimited`, where nothing changes) books the subscriber's answer with
    /// ``delivered(more:)``.
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
    /// ``drained(more:)``.
    case value(Output)
    /// Deliver the completion and let go of the subscriber; release `dropped`, the values
    /// the demand didn't cover. The state is terminal.
    case completion(Subscribers.Completion<Failure>, dropped: RingBuffer<Queued>)
    /// Nothing to do, or terminal.
    case stop
  }

  /// The phase.
  @usableFromInline
  var phase: Phase
  /// Each upstream's progress, by index.
  @usableFromInline
  var slots: [Slot]
  /// Each upstream's subscription, by index: set exactly while its slot is `subscribed`.
  var subscriptions: [(any Subscription)?]
  /// Requested by the subscriber and not yet delivered.
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// Values waiting for demand or behind an earlier value, first in, first out.
  @usableFromInline
  var queue = RingBuffer<Queued>()
  /// How many requests the subscriber made (before its demand became unlimited), so that a
  /// request goes only to the upstreams subscribed before it.
  var requests = 0
  /// How many upstreams have finished. A count rather than a scan of `slots`, so the last
  /// finish is seen in O(1) (`MergeMany` may merge many).
  var finishedCount = 0

  /// A state for `count` upstreams, none subscribed yet; with none, it is finishing at once.
  init(count: Int) {
    phase = count == 0 ? .finishing : .active
    slots = Array(repeating: .awaitingSubscription, count: count)
    subscriptions = Array(repeating: nil, count: count)
  }

  /// Whether upstreams are still taken in (neither completed, failing, nor cancelled).
  @usableFromInline
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
  @usableFromInline
  var hasDelivery: Bool {
    switch phase {
    case .active: return demand > .none && !queue.isEmpty
    case .finishing: return demand > .none || queue.isEmpty
    case .failing: return true
    case .terminal: return false
    }
  }

  // MARK: Transitions

  /// Upstream `index` sent its subscription: it is asked for the demand the subscriber has
  /// now, and forwarded every request from here on.
  mutating func subscribed(_ subscription: any Subscription, at index: Int) -> Subscribed {
    // Only `active` has slots awaiting a subscription.
    guard case .awaitingSubscription = slots[index] else { return .cancel }
    subscriptions[index] = subscription
    slots[index] = .subscribed(after: requests)
    return demand > .none ? .request(demand) : .keep
  }

  /// The subscriber asked for `more`: it is forwarded to the upstreams subscribed now. Once
  /// the demand is unlimited, a request changes nothing.
  mutating func request(_ more: Subscribers.Demand) -> Requested {
    if isTerminal || demand == .unlimited { return .ignored }
    demand += more
    requests += 1
    return .forward(Forward(demand: more, number: requests), drains: hasDelivery)
  }

  /// The next upstream to forward `forward` to (subscribed before it and not done, in order),
  /// or `nil` when there is none left.
  mutating func nextUpstream(for forward: inout Forward) -> (any Subscription)? {
    while forward.next < slots.count {
      let index = forward.next
      forward.next += 1
      guard case .subscribed(let after) = slots[index], after < forward.number else { continue }
      if let subscription = subscriptions[index] { return subscription }
    }
    return nil
  }

  /// Upstream `index` sent `value`, and its thread is inside the gate. It is delivered by the
  /// caller if nothing is queued and there is demand; otherwise queued. Values from a done
  /// upstream are dropped.
  @inlinable
  mutating func receive(_ value: Output, from index: Int) -> ValueAction {
    // Per value: looks only at the reference-free slot (see the type's comment).
    if case .done = slots[index] { return .dropped }
    if demand > .none, queue.isEmpty {
      if demand == .unlimited { return .deliver(unlimited: true) }
      demand -= 1
      return .deliver(unlimited: false)
    }
    queue.append(Queued(value: value, index: index))
    return .queued
  }

  /// Upstream `index` sent `value` from inside a request the thread in the gate forwarded: it
  /// waits in the queue, whatever the demand, so that it doesn't go down from inside that
  /// request. Values from a done upstream are dropped.
  @inlinable
  mutating func queue(_ value: Output, from index: Int) -> ValueAction {
    if case .done = slots[index] { return .dropped }
    queue.append(Queued(value: value, index: index))
    return .queued
  }

  /// A value an upstream sent went down from inside its `receive(_:)` and the subscriber
  /// returned `more`: it is added to the subscriber's demand, and returned (for that upstream
  /// only) unless the demand is unlimited or the subscription ended meanwhile.
  @inlinable
  mutating func delivered(more: Subscribers.Demand) -> Subscribers.Demand {
    guard more > .none, demand != .unlimited, !isTerminal else { return .none }
    demand += more
    return isActive ? more : .none
  }

  /// A queued value went down from the drain and the subscriber returned `more`: it is added to
  /// the subscriber's demand only.
  @inlinable
  mutating func drained(more: Subscribers.Demand) {
    if more > .none, !isTerminal { demand += more }
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
  /// without waiting for demand); `.stop` when nothing is left.
  mutating func nextStep() -> Step {
    // The queue is empty once terminal, so the common case needs no look at the phase.
    if demand > .none, let queued = queue.popFirst() {
      demand -= 1
      return .value(queued.value)
    }
    switch phase {
    case .active:
      break
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

  /// Marks every upstream not yet done as done and takes their subscriptions, to cancel after
  /// the lock.
  mutating func takeSubscriptions() -> [any Subscription] {
    var taken: [any Subscription] = []
    for index in slots.indices where slots[index] != .done {
      slots[index] = .done
      if let subscription = subscriptions[index].take() { taken.append(subscription) }
    }
    return taken
  }
}
