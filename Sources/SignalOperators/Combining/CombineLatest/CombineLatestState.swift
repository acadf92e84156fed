public import StreamCore

/// The state of `combineLatest`'s subscription, as data, for every arity: each transition is a
/// `mutating` function called under ``CombineLatestInner``'s lock, returning what to do after
/// it, so every transition can be tested without threads.
///
/// ```
/// active --a value, every upstream has one, demand > 0--> active (the tuple goes down at once,
///   or is queued for the thread delivering)
/// active --a failure / the last finish / a finish without a value--> ending(completion)
///   (the queued tuples go first, then the completion)
/// ending --nextStep() hands out the completion--> terminal
/// active / ending --cancel()--> terminal (everything released, nothing delivered)
/// ```
///
/// The subscriber and a pending completion live in ``Phase``'s cases. The per-upstream
/// bookkeeping (latest values, demand, which upstreams have a value, a request or a completion)
/// is kept inline beside it, so the per-value transition changes it in place: moving an enum
/// payload out and back would copy it once per value.
///
/// Delivery: the claim is ``CombineLatestInner``'s ``AtomicDrain``, which the value transition
/// tries under the lock (its `claim` argument); the claiming thread, or the one a signal finds
/// idle, drains ``nextStep()``. The queue holds the tuples completed while another thread
/// delivers, at most one per upstream.
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

  /// A tuple waiting for the thread that delivers.
  @usableFromInline
  struct Queued {
    /// The tuple; its demand is already taken.
    @usableFromInline let output: Storage.Output
    /// The upstream whose value made it, asked for another once it is delivered.
    @usableFromInline let index: Int

    @inlinable
    init(output: Storage.Output, index: Int) {
      self.output = output
      self.index = index
    }
  }

  /// What an upstream's subscription leads to.
  @usableFromInline
  enum Subscribed {
    /// Cancel it: a second one, or one after the end.
    case cancel
    /// Keep it; nothing to request yet.
    case keep
    /// Keep it and request one value from it.
    case request
  }

  /// What an upstream's value leads to.
  @usableFromInline
  enum ValueAction {
    /// Nothing: ignored after the end, or stored without demand to deliver it.
    case ignore
    /// Stored; not every upstream has a value yet: the sender is asked for one more.
    case requestMore
    /// The tuple was queued for the thread delivering.
    case queued
    /// The caller claimed the drain: deliver the tuple, then release it. `replenish`: the
    /// sender is asked for one more (demand remains); `unlimited`: the demand the subscriber
    /// returns needs no accounting.
    case deliver(Storage.Output, Downstream, replenish: Bool, unlimited: Bool)
  }

  /// Upstreams to ask for one value each after the lock.
  @usableFromInline
  struct Requests {
    /// The upstreams to call, except the one named by `returning`'s index.
    @usableFromInline var calls = CombiningCalls()
    /// Whether the upstream the caller named is to be asked too (by returning `.max(1)`).
    @usableFromInline var returning = false

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
    @usableFromInline var queue: RingBuffer<Queued>
    /// A completion not delivered.
    @usableFromInline var completion: Subscribers.Completion<Failure>?

    @inlinable
    init(storage: Storage, queue: RingBuffer<Queued>) {
      self.storage = storage
      self.queue = queue
    }
  }

  /// One step of the drain, performed outside the lock.
  @usableFromInline
  enum Step {
    /// Deliver a queued tuple, then report it with ``delivered(from:more:)``.
    case value(Storage.Output, index: Int, Downstream)
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
  /// Bit `i`: upstream `i` has a value requested, or a tuple it made queued.
  @usableFromInline var inFlight: UInt8 = 0
  /// Bit `i`: upstream `i` has completed.
  @usableFromInline var finished: UInt8 = 0
  /// Tuples completed while another thread delivered.
  @usableFromInline var queue = RingBuffer<Queued>()
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
    guard demand > .none, inFlight & bit == 0 else { return .keep }
    inFlight |= bit
    return .request
  }

  /// Upstream `Slot` sent `value`: it replaces the slot's latest value and, when every upstream
  /// has one and there is demand, makes a tuple, which goes down at once if no thread is
  /// delivering (`claim`, called under the lock, returns `true`) or is queued for that thread.
  ///
  /// The value it replaces is handed out in `replaced`, for the caller to release after the
  /// lock. (An `inout` rather than a field of the action: a generic action struct made the
  /// optimiser destroy it through runtime metadata, 90 instructions per value.)
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
    guard demand > .none else {
      inFlight &= ~bit  // the stored value stands in for it; nothing is delivered later
      return .ignore
    }
    guard hasValue == Self.allSides else { return .requestMore }
    demand -= 1
    let output = storage.output()
    // Tuples stay in order: one goes down at once only when none is queued.
    guard queue.isEmpty, claim() else {
      queue.append(Queued(output: output, index: Slot.index))  // stays in flight until delivered
      return .queued
    }
    guard case .active(let downstream) = phase else {
      preconditionFailure("CombineLatest: a tuple after the end")
    }
    let replenish = demand > .none
    if !replenish { inFlight &= ~bit }
    return .deliver(output, downstream, replenish: replenish, unlimited: demand == .unlimited)
  }

  /// The subscriber asked for `more` (or returned it from a delivery): returns the idle,
  /// unfinished upstreams to ask for a value, and whether upstream `index` is one of them
  /// (left out of `calls`, for the caller to ask by its return value); `nil` once terminal.
  @inlinable
  mutating func add(_ more: Subscribers.Demand, returning index: Int?) -> Requests? {
    if isTerminal { return nil }
    demand += more
    return collectRequests(returning: index)
  }

  /// The drain delivered a queued tuple made by upstream `index`, and the subscriber returned
  /// `more`: returns the upstreams to ask for a value.
  @inlinable
  mutating func delivered(from index: Int, more: Subscribers.Demand) -> CombiningCalls {
    if isTerminal { return CombiningCalls() }
    demand += more
    inFlight &= ~(1 << index)
    return collectRequests(returning: nil).calls
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
    inFlight &= ~bit
    action.released = subscriptions[index].take()
    if case .finished = completion, hasValue & bit != 0, finished != Self.allSides {
      return action  // its latest value still combines with the others'
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
      return .value(queued.output, index: queued.index, downstream)
    case .ending(let downstream, let completion):
      if let queued = queue.popFirst() {
        return .value(queued.output, index: queued.index, downstream)
      }
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

  /// Marks the upstreams that are idle, unfinished and subscribed as in flight, while there is
  /// demand; returns them, except `index`, and whether `index` was marked.
  @inlinable
  mutating func collectRequests(returning index: Int?) -> Requests {
    var requests = Requests()
    guard demand > .none else { return requests }
    for side in 0..<Storage.arity {
      let bit: UInt8 = 1 << side
      guard inFlight & bit == 0, finished & bit == 0, let subscription = subscriptions[side] else {
        continue
      }
      inFlight |= bit
      if side == index {
        requests.returning = true
      } else {
        requests.calls.append(subscription)
      }
    }
    return requests
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
