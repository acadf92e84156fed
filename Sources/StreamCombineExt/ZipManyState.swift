import StreamCore

/// The state of a subscription to `zip` of a collection of publishers, as data: one queue of
/// values per publisher, in one array, so any number of publishers takes one subscription and no
/// recursion. Each transition is called under ``ZipManyInner``'s lock and says what to do after
/// it.
///
/// ```
/// active --a value; every queue has one, demand > 0--> active (the drain takes an array)
/// active --a publisher fails--> ending(failure) (the arrays the queues still make go first,
///   while there is demand; then the failure, which doesn't wait for demand)
/// active --a publisher finished and its queue is empty--> ending(.finished)
/// ending --nextStep() hands out the completion--> terminal
/// active / ending --cancel()--> terminal (everything handed out, nothing delivered)
/// ```
///
/// A value costs O(1): `filled` counts the queues that hold one, so an array is ready when it
/// equals the number of publishers. Taking an array visits each queue once.
struct ZipManyState<Value, Downstream: Subscriber> where Downstream.Input == [Value] {
  typealias Failure = Downstream.Failure

  enum Phase {
    /// Values are accepted and paired.
    case active(Downstream)
    /// Nothing more is accepted; the arrays the queues still make go first, then this.
    case ending(Downstream, Subscribers.Completion<Failure>)
    /// Completed or cancelled: nothing is held.
    case terminal
  }

  /// One step of the drain, performed outside the lock.
  enum Step {
    /// Deliver an array; pass the demand the subscriber returns to ``add(_:)``.
    case value([Value], Downstream)
    /// Deliver the completion, then cancel `cancels`; `released` (the values never paired) is
    /// let go of after it.
    case completion(
      Subscribers.Completion<Failure>,
      Downstream,
      cancels: [any Subscription],
      released: ContiguousArray<RingBuffer<Value>>
    )
  }

  /// What an upstream's completion leads to, after the lock.
  struct Completed {
    /// The completed upstream's subscription, released (not cancelled) after the lock.
    var released: (any Subscription)?
    /// Whether the caller claimed the drain, to deliver the completion.
    var claimed = false
  }

  /// What the subscriber's `request(_:)` leads to, after the lock.
  struct Requested {
    /// The upstreams to pass the demand to (`nil` entries are skipped).
    var upstreams: ContiguousArray<(any Subscription)?>
    /// Whether the caller claimed the drain: an array is ready.
    var claimed: Bool
  }

  /// What `cancel()` takes out, to cancel or release after the lock.
  struct Cancelled {
    var downstream: Downstream?
    var upstreams: ContiguousArray<(any Subscription)?>
    var queues: ContiguousArray<RingBuffer<Value>>
    var completion: Subscribers.Completion<Failure>?
  }

  private(set) var phase: Phase
  /// One queue of unpaired values per publisher, in the collection's order.
  private var queues: ContiguousArray<RingBuffer<Value>>
  /// How many queues hold at least one value.
  private var filled = 0
  /// Which publishers have completed.
  private var finished: ContiguousArray<Bool>
  /// The publishers' subscriptions; `nil` before one arrives and after it ended.
  private var upstreams: ContiguousArray<(any Subscription)?>
  /// Requested by the subscriber and not yet met.
  private(set) var demand = Subscribers.Demand.none
  /// Everything the subscriber asked for; what a publisher subscribing late is asked for.
  private var requested = Subscribers.Demand.none
  /// Whether the subscriber has its subscription: nothing goes down before.
  private var started = false
  /// Who delivers.
  private var drain = SerialDrain()

  init(downstream: Downstream, count: Int) {
    phase = .active(downstream)
    queues = ContiguousArray(repeating: RingBuffer(), count: count)
    finished = ContiguousArray(repeating: false, count: count)
    upstreams = ContiguousArray(repeating: nil, count: count)
  }

  var isActive: Bool {
    if case .active = phase { return true }
    return false
  }

  var downstream: Downstream? {
    switch phase {
    case .active(let downstream), .ending(let downstream, _): downstream
    case .terminal: nil
    }
  }

  /// Whether an array can go down now (also while ending over a failure).
  private var arrayIsReady: Bool {
    demand > .none && filled == queues.count && !queues.isEmpty
  }

  /// Whether the drain has something to do.
  private var hasWork: Bool {
    switch phase {
    case .active: arrayIsReady
    case .ending: true
    case .terminal: false
    }
  }

  // MARK: Transitions

  /// Upstream `index` sent its subscription: returns what to ask of it, or `nil`: cancel it (a
  /// second one, or one after the end).
  mutating func subscribed(_ subscription: any Subscription, at index: Int) -> Subscribers.Demand? {
    guard isActive, upstreams[index] == nil, !finished[index] else { return nil }
    upstreams[index] = subscription
    return requested
  }

  /// Upstream `index` sent `value`: queued while active. Returns whether the caller claimed the
  /// drain.
  mutating func receive(_ value: Value, at index: Int) -> Bool {
    guard isActive, !finished[index] else { return false }
    if queues[index].isEmpty { filled += 1 }
    queues[index].append(value)
    return started && arrayIsReady && drain.claim()
  }

  /// Upstream `index` completed.
  mutating func complete(_ completion: Subscribers.Completion<Failure>, at index: Int) -> Completed
  {
    var completed = Completed()
    guard case .active(let downstream) = phase, !finished[index] else { return completed }
    finished[index] = true
    switch completion {
    case .failure:
      // Its subscription stays, to be cancelled with the others once the failure went down, as
      // Combine's zip does.
      phase = .ending(downstream, completion)
    case .finished:
      completed.released = upstreams[index].take()
      guard queues[index].isEmpty else { return completed }
      phase = .ending(downstream, .finished)
    }
    completed.claimed = started && drain.claim()
    return completed
  }

  /// The subscriber asked for `more`, or returned it for an array: returns the upstreams to ask
  /// and whether the caller claimed the drain; `nil` once terminal. While ending, nobody is asked.
  mutating func add(_ more: Subscribers.Demand) -> Requested? {
    guard !isTerminal else { return nil }
    let wasUnlimited = demand == .unlimited
    demand += more
    requested += more
    let asked = isActive && !wasUnlimited ? upstreams : []
    return Requested(upstreams: asked, claimed: started && hasWork && drain.claim())
  }

  /// The subscriber has its subscription: what arrived meanwhile can go down. Returns whether
  /// the caller claimed the drain.
  mutating func start() -> Bool {
    started = true
    return hasWork && drain.claim()
  }

  /// The drain's next step, for the thread that claimed it; `nil` after releasing the drain.
  mutating func nextStep() -> Step? {
    switch phase {
    case .terminal:
      return nil
    case .active(let downstream), .ending(let downstream, _):
      if arrayIsReady {
        return .value(takeArray(), downstream)
      }
      guard case .ending(_, let completion) = phase else { break }
      phase = .terminal
      return .completion(
        completion,
        downstream,
        cancels: upstreams.take().compactMap { $0 },
        released: queues.take()
      )
    }
    drain.release()
    return nil
  }

  /// Ends without delivering anything.
  mutating func cancel() -> Cancelled {
    var cancelled = Cancelled(
      downstream: downstream,
      upstreams: upstreams.take(),
      queues: queues.take(),
      completion: nil
    )
    if case .ending(_, let completion) = phase { cancelled.completion = completion }
    phase = .terminal
    return cancelled
  }

  // MARK: Helpers

  private var isTerminal: Bool {
    if case .terminal = phase { return true }
    return false
  }

  /// Takes the first value of every queue, for one of the demand; starts ending when a publisher
  /// that finished has no value left.
  private mutating func takeArray() -> [Value] {
    demand -= 1
    var array: [Value] = []
    array.reserveCapacity(queues.count)
    var exhausted = false
    for index in queues.indices {
      guard let value = queues[index].popFirst() else {
        preconditionFailure("zip: an array was taken from an empty queue")
      }
      array.append(value)
      if queues[index].isEmpty {
        filled -= 1
        if finished[index] { exhausted = true }
      }
    }
    if exhausted, case .active(let downstream) = phase {
      phase = .ending(downstream, .finished)
    }
    return array
  }
}

extension ContiguousArray {
  /// Empties the array and returns what it held, to release after the lock.
  fileprivate mutating func take() -> ContiguousArray {
    var taken = ContiguousArray()
    swap(&taken, &self)
    return taken
  }
}
