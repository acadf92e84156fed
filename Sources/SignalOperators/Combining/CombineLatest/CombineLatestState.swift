public import StreamCore

/// The state of `combineLatest`'s subscription, as data, for every arity: each transition is a
/// `mutating` function called under ``CombineLatestInner``'s lock, returning what to do after
/// it, so every transition can be tested without threads.
///
/// ```
/// active --a value, every upstream has one, demand > 0--> active (the tuple goes down at once,
///   or is queued for the thread delivering)
/// active --a value, every upstream has one, no demand--> active (the tuple is held; the next
///   demand sends the latest values)
/// active --a failure / the last finish--> ending(completion)
///   (the queued tuples go first, then the completion)
/// ending --nextStep() hands out the completion--> terminal
/// active / ending --cancel()--> terminal (everything released, nothing delivered)
/// ```
///
/// The subscriber and a pending completion live in ``Phase``'s cases. The per-upstream
/// bookkeeping (latest values, demand, which upstreams have a value or a completion) is kept
/// inline beside it, so the per-value transition changes it in place: moving an enum
/// payload out and back would copy it once per value.
///
/// Delivery: ``CombineLatestInner`` calls the value transition inside its delivery gate; its
/// `claim` argument says whether the tuple may go down at once (not while the subscription
/// itself is asking upstreams for values). The thread in the gate drains ``nextStep()``. The
/// queue holds the tuples made while an earlier one waits, or in answer to such a request, and
/// the held tuple that a request releases.
@usableFromInline
struct CombineLatestState<Storage: CombineLatestValues, Downstream: Subscriber>
where Downstream.Input == Storage.Output {
  @usableFromInline typealias Failure = Downstream.Failure

  /// Where the subscription is in its life, and what exists in that phase.
  @usableFromInline
  enum Phase {
    /// Values are accepted and combined; the subscriber receives the tuples.
    case active(Downstream)
    /// Nothing more is accepted; the queued tuples go to the subscriber first, then this
    /// completion.
    case ending(Downstream, Subscribers.Completion<Failure>)
    /// Completed or cancelled: nothing is held.
    case terminal
  }

  /// What an upstream's subscription leads to.
  @usableFromInline
  enum Subscribed: Equatable {
    /// Cancel it: a second one, or one after the end.
    case cancel
    /// Keep it; nothing to request yet.
    case keep
    /// Keep it and request the subscriber's outstanding demand from it.
    case request(Subscribers.Demand)
  }

  /// What an upstream's value leads to.
  @usableFromInline
  enum ValueAction {
    /// Nothing: ignored after the end, stored while not every upstream has a value, or held
    /// without demand to deliver it.
    case ignore
    /// The tuple was queued for the thread delivering.
    case queued
    /// The caller claimed the drain: deliver the tuple, then release it. `unlimited`: the
    /// demand the subscriber returns changes nothing and goes nowhere.
    case deliver(Storage.Output, Downstream, unlimited: Bool)
  }

  /// What the demand the subscriber returned for a tuple leads to, performed after the lock.
  @usableFromInline
  struct Returned {
    /// Whether the upstream whose value made the tuple gets the demand as `receive(_:)`'s
    /// return value.
    @usableFromInline var returning = false
    /// Whether the held tuple was queued: the caller, holding the drain claim, drains it.
    @usableFromInline var drain = false

    @inlinable
    init() {}
  }

  /// What an upstream's completion leads to, performed after the lock.
  @usableFromInline typealias CompletionAction = CombiningCompletionAction

  /// What `cancel()` took out of the state, to cancel or release after the lock.
  @usableFromInline
  struct Cancelled {
    /// The upstreams, to cancel.
    @usableFromInline var cancels = CombiningCalls()
    /// The subscriber, `nil` once terminal.
    @usableFromInline var downstream: Downstream?
    /// The latest values.
    @usableFromInline var storage: Storage
    /// The tuples not delivered.
    @usableFromInline var queue: RingBuffer<Storage.Output>
    /// A completion not delivered.
    @usableFromInline var completion: Subscribers.Completion<Failure>?

    @inlinable
    init(storage: Storage, queue: RingBuffer<Storage.Output>) {
      self.storage = storage
      self.queue = queue
    }
  }

  /// One step of the drain, performed outside the lock.
  @usableFromInline
  enum Step {
    /// Deliver a queued tuple, then report the demand returned with ``delivered(more:)``.
    case value(Storage.Output, Downstream)
    /// Deliver the completion and release `released` (the latest values); the state is terminal.
    case completion(Subscribers.Completion<Failure>, Downstream, released: Storage)
  }

  @usableFromInline var phase: Phase
  /// The latest value of each upstream.
  @usableFromInline var storage = Storage()
  /// Requested by the subscriber and not yet used by a tuple.
  @usableFromInline var demand = Subscribers.Demand.none
  /// Bit `i`: upstream `i` has sent a value.
  @usableFromInline var hasValue: UInt8 = 0
  /// Every upstream has a value and one of them sent since the last tuple, which found no
  /// demand: the next demand sends the latest values.
  @usableFromInline var held = false
  /// Bit `i`: upstream `i` has completed.
  @usableFromInline var finished: UInt8 = 0
  /// Tuples whose demand is taken, waiting for the thread delivering.
  @usableFromInline var queue = RingBuffer<Storage.Output>()
  /// The upstreams' subscriptions, by index; `nil` before one arrives and after it ended.
  @usableFromInline var subscriptions: ContiguousArray<(any Subscription)?>

  @inlinable
  init(downstream: Downstream) {
    phase = .active(downstream)
    subscriptions = ContiguousArray(repeating: nil, count: Storage.arity)
  }

  /// Every upstream's bit.
  @inlinable
  static var allSides: UInt8 { UInt8(truncatingIfNeeded: (1 << Storage.arity) - 1) }

  /// Whether values are accepted.
  @inlinable
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

  // MARK: Transitions

  /// Upstream `index` sent its subscription.
  @inlinable
  mutating func subscribed(_ subscription: any Subscription, at index: Int) -> Subscribed {
    let bit: UInt8 = 1 << index
    guard isActive, subscriptions[index] == nil, finished & bit == 0 else { return .cancel }
    subscriptions[index] = subscription
    return demand > .none ? .request(demand) : .keep
  }

  /// Upstream `Slot` sent `value`: it replaces the slot's latest value and, when every upstream
  /// has one and there is demand, makes a tuple, which goes down at once if nothing is queued
  /// and `claim` (called under the lock) returns `true`, or is queued for the drain; without
  /// demand the tuple is held for the next request.
  ///
  /// The value it replaces is handed out in `replaced`, for the caller to release after the
  /// lock. (An `inout` rather than a field of the action: a generic action struct made the
  /// optimiser destroy it through runtime metadata on every value.)
  // Always inlined: the per-value path, folded into the caller's critical section.
  @inlinable @inline(__always)
  mutating func receive<Slot: CombiningSlot>(
    _ value: Slot.Value,
    slot: Slot.Type,
    replaced: inout Slot.Value?,
    claim: () -> Bool
  ) -> ValueAction where Slot.Storage == Storage {
    let bit: UInt8 = 1 << Slot.index
    guard isActive, finished & bit == 0 else { return .ignore }
    replaced = Slot.put(value, into: &storage)
    hasValue |= bit
    guard hasValue == Self.allSides else { return .ignore }
    guard demand > .none else {
      held = true  // the latest values go down with the next demand
      return .ignore
    }
    demand -= 1
    held = false
    let output = storage.output()
    // Tuples stay in order: one goes down at once only when none is queued.
    guard queue.isEmpty, claim() else {
      queue.append(output)
      return .queued
    }
    guard case .active(let downstream) = phase else {
      preconditionFailure("CombineLatest: a tuple after the end")
    }
    return .deliver(output, downstream, unlimited: demand == .unlimited)
  }

  /// The subscriber asked for `more`: returns whether the held tuple was queued for the drain
  /// (signal it), or `nil` when the request changes nothing (terminal, or the demand is already
  /// unlimited) and goes nowhere. The upstreams are asked afterwards, with ``upstreamCalls()``.
  @inlinable
  mutating func add(_ more: Subscribers.Demand) -> Bool? {
    guard !isTerminal, demand != .unlimited else { return nil }
    demand += more
    return releaseHeld()
  }

  /// The upstreams to pass a request to: every one subscribed and not completed, none once the
  /// subscription ended.
  @inlinable
  func upstreamCalls(except index: Int? = nil) -> CombiningCalls {
    var calls = CombiningCalls()
    guard isActive else { return calls }
    for side in subscriptions.indices where side != index {
      if let subscription = subscriptions[side] { calls.append(subscription) }
    }
    return calls
  }

  /// The subscriber returned `more` for the tuple upstream `index`'s value made, delivered at
  /// once: the demand is added to the subscriber's and goes back to that upstream only, as
  /// Combine's (the others are not asked: see `CombineLatestInner`).
  @inlinable
  mutating func returned(_ more: Subscribers.Demand, from index: Int) -> Returned {
    var result = Returned()
    guard more > .none, isActive, demand != .unlimited else { return result }
    demand += more
    result.drain = releaseHeld()
    result.returning = subscriptions[index] != nil
    return result
  }

  /// The drain delivered a queued tuple and the subscriber returned `more`: added to the
  /// subscriber's demand; no upstream is asked, as in Combine.
  @inlinable
  mutating func delivered(more: Subscribers.Demand) {
    guard more > .none, isActive, demand != .unlimited else { return }
    demand += more
    _ = releaseHeld()  // queued: the drain loop delivers it next
  }

  /// Upstream `index` completed.
  @inlinable
  mutating func complete(
    _ completion: Subscribers.Completion<Failure>,
    at index: Int
  ) -> CompletionAction {
    var action = CompletionAction()
    let bit: UInt8 = 1 << index
    guard case .active(let downstream) = phase, finished & bit == 0 else { return action }
    finished |= bit
    action.released = subscriptions[index].take()
    if case .finished = completion, finished != Self.allSides {
      return action  // the others go on; Combine finishes only once every upstream has
    }
    phase = .ending(downstream, completion)
    action.cancels = takeSubscriptions()
    action.ending = true
    return action
  }

  /// The subscriber cancelled.
  @inlinable
  mutating func cancel() -> Cancelled {
    var cancelled = Cancelled(
      storage: combiningExchange(&storage, with: Storage()),
      queue: queue.takeAll()
    )
    switch phase {
    case .active(let downstream):
      cancelled.downstream = downstream
    case .ending(let downstream, let completion):
      cancelled.downstream = downstream
      cancelled.completion = completion
    case .terminal:
      break
    }
    phase = .terminal
    cancelled.cancels = takeSubscriptions()
    return cancelled
  }

  /// The drain's next step, for the thread holding the claim: the queued tuples, then the
  /// completion once ending; `nil` when there is nothing to deliver now.
  @inlinable
  mutating func nextStep() -> Step? {
    if queue.isEmpty, isActive { return nil }  // the common case, without copying the subscriber
    switch phase {
    case .active(let downstream):
      guard let queued = queue.popFirst() else { return nil }
      return .value(queued, downstream)
    case .ending(let downstream, let completion):
      if let queued = queue.popFirst() { return .value(queued, downstream) }
      phase = .terminal
      return .completion(
        completion,
        downstream,
        released: combiningExchange(&storage, with: Storage())
      )
    case .terminal:
      return nil
    }
  }

  // MARK: Helpers

  /// Queues the held tuple (the latest values) when there is demand for it, taking one of the
  /// demand; returns whether it did.
  @inlinable
  mutating func releaseHeld() -> Bool {
    guard held, demand > .none, isActive else { return false }
    held = false
    demand -= 1
    queue.append(storage.output())
    return true
  }

  /// Takes every upstream subscription, to cancel after the lock.
  @inlinable
  mutating func takeSubscriptions() -> CombiningCalls {
    var calls = CombiningCalls()
    for side in subscriptions.indices {
      if let subscription = subscriptions[side].take() { calls.append(subscription) }
    }
    return calls
  }
}
