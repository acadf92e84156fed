public import StreamCore

/// The state of `zip`'s subscription, as data, for every arity: each transition is a `mutating`
/// function called under ``ZipInner``'s lock, returning what to do after it, so every
/// transition can be tested without threads.
///
/// ```
/// active --a value completes a tuple, demand > 0--> active (the tuple goes down)
/// active --an upstream fails--> ending(failure) (the tuples the queues still make go first,
///   while there is demand; then the failure, which doesn't wait for demand)
/// active --an upstream finished and its queue is empty--> ending(.finished)
/// ending --nextStep() hands out the completion--> ended
/// active / ending --cancel()--> ended (everything released, nothing delivered)
/// ```
@usableFromInline
struct ZipState<Storage: ZipQueues, Failure: Error> {
  /// Where the subscription is in its life.
  @usableFromInline
  enum Phase {
    /// Values are accepted and paired.
    case active
    /// Nothing more is accepted; the tuples the queues still make go first, then this.
    case ending(Subscribers.Completion<Failure>)
    /// Completed or cancelled.
    case ended
  }

  /// What an upstream's completion leads to, performed after the lock.
  @usableFromInline typealias CompletionAction = CombiningCompletionAction

  /// What `cancel()` took out of the state, to cancel or release after the lock.
  @usableFromInline
  struct Released {
    /// The upstreams, to cancel.
    @usableFromInline var cancels = CombiningCalls()
    /// The values not paired.
    @usableFromInline var storage: Storage
    /// A completion not delivered.
    @usableFromInline var completion: Subscribers.Completion<Failure>?

    @inlinable
    init(storage: Storage) {
      self.storage = storage
    }
  }

  /// One step of the drain.
  @usableFromInline
  enum Step {
    /// Deliver a tuple.
    case value(Storage.Output)
    /// Deliver the completion, then cancel `cancels`; release `released` (the values not paired).
    case completion(Subscribers.Completion<Failure>, cancels: CombiningCalls, released: Storage)
    /// Nothing to deliver now.
    case stop
  }

  /// What the downstream's `request(_:)` leads to, performed after the lock.
  @usableFromInline
  struct Requested {
    /// The upstreams to forward the demand to.
    @usableFromInline var calls: CombiningCalls
    /// A tuple is ready: the caller asks for a drain.
    @usableFromInline var ready: Bool

    @inlinable
    init(calls: CombiningCalls, ready: Bool) {
      self.calls = calls
      self.ready = ready
    }
  }

  @usableFromInline var phase = Phase.active
  /// One queue of unpaired values per upstream.
  @usableFromInline var storage = Storage()
  /// Requested by the downstream and not yet delivered.
  @usableFromInline var demand = Subscribers.Demand.none
  /// Everything the downstream has asked for so far; what an upstream subscribing late requests.
  @usableFromInline var requested = Subscribers.Demand.none
  /// Bit `i`: upstream `i` has completed.
  @usableFromInline var finished: UInt8 = 0
  /// The upstreams' subscriptions, by index; `nil` before one arrives and after it ended.
  @usableFromInline var subscriptions: ContiguousArray<(any Subscription)?>
  /// The upstream whose value completed the tuple being delivered from inside its
  /// `receive(_:)`, if any: a `request(_:)` made meanwhile reaches it as that call's return
  /// value instead (as Combine).
  @usableFromInline var processing: Int?
  /// What the downstream requested while `processing` was set.
  @usableFromInline var requestedWhileProcessing = Subscribers.Demand.none

  @inlinable
  init() {
    subscriptions = ContiguousArray(repeating: nil, count: Storage.arity)
  }

  /// Whether nothing has ended the subscription yet: values are accepted.
  @inlinable
  var isActive: Bool {
    if case .active = phase { return true }
    return false
  }

  /// Whether the subscription completed or was cancelled.
  @inlinable
  var isEnded: Bool {
    if case .ended = phase { return true }
    return false
  }

  /// Whether a tuple can go down now.
  @inlinable
  var canDeliver: Bool { demand > .none && storage.isReady }

  // MARK: Transitions

  /// Upstream `index` sent its subscription: returns what to request from it, or `nil` when it
  /// is to be cancelled (a second one, or one after the end).
  @inlinable
  mutating func subscribed(_ subscription: any Subscription, at index: Int) -> Subscribers.Demand? {
    guard isActive, subscriptions[index] == nil, finished & (1 << index) == 0 else { return nil }
    subscriptions[index] = subscription
    return requested
  }

  /// Upstream `Slot` sent `value`: queued if the subscription is active. Returns whether it was.
  @inlinable
  mutating func put<Slot: CombiningSlot>(_ value: Slot.Value, slot: Slot.Type) -> Bool
  where Slot.Storage == Storage {
    guard isActive, finished & (1 << Slot.index) == 0 else { return false }
    _ = Slot.put(value, into: &storage)  // zip queues: nothing is replaced
    return true
  }

  /// Takes the next tuple, for one unit of demand; only when ``canDeliver``. Returns whether
  /// the subscription started ending because of it (an upstream that had finished ran dry).
  @inlinable
  mutating func takeTuple() -> (Storage.Output, ending: Bool) {
    demand -= 1
    let output = storage.takeOutput()
    return (output, endIfExhausted())
  }

  /// Upstream `index` completed.
  @inlinable
  mutating func complete(
    _ completion: Subscribers.Completion<Failure>,
    at index: Int
  ) -> CompletionAction {
    var action = CompletionAction()
    let bit: UInt8 = 1 << index
    guard isActive, finished & bit == 0 else { return action }
    finished |= bit
    switch completion {
    case .failure:
      // Values already queued were sent before the failure: the tuples they complete go
      // first, while there is demand (see `nextStep()`). The failed upstream's subscription is
      // kept, to be cancelled with the others, as Combine cancels it too (OpenCombine's
      // `ZipTests.testBCancelledAfterAFailed`).
      phase = .ending(completion)
    case .finished:
      action.released = subscriptions[index].take()
      guard storage.isEmpty(at: index) else { return action }
      phase = .ending(.finished)
    }
    // The other upstreams are cancelled right after the completion goes down (`nextStep()`),
    // as Combine: the subscriber hears of the end first.
    action.ending = true
    return action
  }

  /// The downstream returned `more` from a delivery: added to its demand; no upstream is asked,
  /// as in Combine (the upstream whose value completed the tuple gets it back as its
  /// `receive(_:)`'s return value).
  @inlinable
  mutating func addReturned(_ more: Subscribers.Demand) {
    guard !isEnded else { return }
    demand += more
  }

  /// The downstream asked for `more`: returns the upstreams to forward it to, except `index`,
  /// or `nil` once ended.
  @inlinable
  mutating func add(_ more: Subscribers.Demand, except index: Int?) -> CombiningCalls? {
    guard !isEnded else { return nil }
    demand += more
    requested += more
    var calls = CombiningCalls()
    for side in subscriptions.indices where side != index {
      if let subscription = subscriptions[side] { calls.append(subscription) }
    }
    return calls
  }

  /// The downstream called `request(_:)`: returns the upstreams to forward it to and whether
  /// a tuple is ready, or `nil` once ended.
  @inlinable
  mutating func request(_ more: Subscribers.Demand) -> Requested? {
    guard let calls = add(more, except: processing) else { return nil }
    if processing != nil { requestedWhileProcessing += more }
    return Requested(calls: calls, ready: storage.isReady)
  }

  /// The delivery from inside upstream `index`'s `receive(_:)` starts.
  @inlinable
  mutating func startProcessing(_ index: Int) {
    processing = index
    requestedWhileProcessing = .none
  }

  /// The delivery from inside an upstream's `receive(_:)` returned: what the downstream
  /// requested meanwhile, for that upstream.
  @inlinable
  mutating func endProcessing() -> Subscribers.Demand {
    processing = nil
    return combiningExchange(&requestedWhileProcessing, with: .none)
  }

  /// The downstream cancelled.
  @inlinable
  mutating func cancel() -> Released {
    var released = Released(storage: combiningExchange(&storage, with: Storage()))
    if case .ending(let completion) = phase { released.completion = completion }
    phase = .ended
    released.cancels = takeSubscriptions()
    return released
  }

  /// The drain's next step: a tuple while there is demand, then the completion once ending.
  @inlinable
  mutating func nextStep() -> Step {
    if isEnded { return .stop }
    // Also while ending over a failure; ending with `.finished` leaves no tuple ready.
    if canDeliver { return .value(takeTuple().0) }
    guard case .ending(let completion) = phase else { return .stop }
    phase = .ended
    return .completion(
      completion,
      cancels: takeSubscriptions(),
      released: combiningExchange(&storage, with: Storage())
    )
  }

  // MARK: Helpers

  /// If an upstream has finished and its queue is empty, starts ending with `.finished` and
  /// returns `true`.
  @inlinable
  mutating func endIfExhausted() -> Bool {
    guard finished != 0, isActive else { return false }  // not over a failure
    for side in 0..<Storage.arity where finished & (1 << side) != 0 && storage.isEmpty(at: side) {
      phase = .ending(.finished)
      return true
    }
    return false
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
