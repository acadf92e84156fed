import StreamCore

/// The state of a subscription to `combineLatest` of a collection of publishers, as data: the
/// latest value of each publisher, in one array, so any number of publishers takes one
/// subscription and no recursion. Each transition is called under ``CombineLatestManyInner``'s
/// lock and says what to do after it.
///
/// ```
/// active --a value, every publisher has one, demand > 0--> active (an array is queued for the
///   drain, one of the demand taken)
/// active --a value, every publisher has one, no demand--> active (held: the next demand sends
///   the latest values)
/// active --a failure / the last finish--> ending(completion) (the other publishers cancelled;
///   the queued arrays go first, then the completion)
/// ending --nextStep() hands out the completion--> terminal
/// active / ending --cancel()--> terminal (everything handed out, nothing delivered)
/// ```
///
/// A value that makes no array costs O(1): `missing` counts the publishers without a value yet.
struct CombineLatestManyState<Value, Downstream: Subscriber> where Downstream.Input == [Value] {
  typealias Failure = Downstream.Failure

  enum Phase {
    /// Values are accepted and combined.
    case active(Downstream)
    /// Nothing more is accepted; the queued arrays go first, then this.
    case ending(Downstream, Subscribers.Completion<Failure>)
    /// Completed or cancelled: nothing is held.
    case terminal
  }

  /// One step of the drain, performed outside the lock.
  enum Step {
    /// Deliver an array; pass the demand the subscriber returns to ``add(_:)``.
    case value([Value], Downstream)
    /// Deliver the completion; `released` (the latest values) is let go of after it.
    case completion(Subscribers.Completion<Failure>, Downstream, released: ContiguousArray<Value?>)
  }

  /// What an upstream's value leads to, after the lock.
  struct Received {
    /// The value it replaces, released after the lock.
    var replaced: Value?
    /// Whether the caller claimed the drain.
    var claimed = false
  }

  /// What an upstream's completion leads to, after the lock.
  struct Completed {
    /// The completed upstream's subscription, released (not cancelled) after the lock.
    var released: (any Subscription)?
    /// The other upstreams, cancelled after the lock when the completion ends the subscription.
    var cancels: ContiguousArray<(any Subscription)?> = []
    /// Whether the caller claimed the drain, to deliver the completion.
    var claimed = false
  }

  /// What the subscriber's `request(_:)` leads to, after the lock.
  struct Requested {
    /// The upstreams to pass the demand to (`nil` entries are skipped).
    var upstreams: ContiguousArray<(any Subscription)?>
    /// Whether the caller claimed the drain: an array is queued.
    var claimed: Bool
  }

  /// What `cancel()` takes out, to cancel or release after the lock.
  struct Cancelled {
    var downstream: Downstream?
    var upstreams: ContiguousArray<(any Subscription)?>
    var latest: ContiguousArray<Value?>
    var queue: RingBuffer<[Value]>
    var completion: Subscribers.Completion<Failure>?
  }

  private(set) var phase: Phase
  /// The latest value of each publisher, in the collection's order.
  private var latest: ContiguousArray<Value?>
  /// How many publishers have not sent a value yet.
  private var missing: Int
  /// Which publishers have completed, and how many.
  private var finished: ContiguousArray<Bool>
  private var finishedCount = 0
  /// Every publisher has a value and one of them sent since the last array, which found no
  /// demand: the next demand sends the latest values.
  private var held = false
  /// Arrays whose demand is taken, waiting for the drain.
  private var queue = RingBuffer<[Value]>()
  /// The publishers' subscriptions; `nil` before one arrives and after it ended.
  private var upstreams: ContiguousArray<(any Subscription)?>
  /// Requested by the subscriber and not yet used by an array.
  private(set) var demand = Subscribers.Demand.none
  /// Everything the subscriber asked for; what a publisher subscribing late is asked for.
  private var requested = Subscribers.Demand.none
  /// Whether the subscriber has its subscription: nothing goes down before.
  private var started = false
  /// Who delivers.
  private var drain = SerialDrain()

  init(downstream: Downstream, count: Int) {
    phase = .active(downstream)
    latest = ContiguousArray(repeating: nil, count: count)
    missing = count
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

  /// Whether the drain has something to do.
  private var hasWork: Bool {
    switch phase {
    case .active: !queue.isEmpty
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

  /// Upstream `index` sent `value`: it replaces the publisher's latest value and, once every
  /// publisher has one, makes an array for one of the demand, or is held for the next demand.
  mutating func receive(_ value: Value, at index: Int) -> Received {
    var received = Received()
    guard isActive, !finished[index] else { return received }
    received.replaced = latest[index].take()
    if received.replaced == nil { missing -= 1 }
    latest[index] = value
    guard missing == 0 else { return received }
    held = true
    releaseHeld()
    received.claimed = started && hasWork && drain.claim()
    return received
  }

  /// Upstream `index` completed: a failure ends the subscription, and so does the last finish.
  mutating func complete(_ completion: Subscribers.Completion<Failure>, at index: Int) -> Completed
  {
    var completed = Completed()
    guard case .active(let downstream) = phase, !finished[index] else { return completed }
    finished[index] = true
    finishedCount += 1
    completed.released = upstreams[index].take()
    if case .finished = completion, finishedCount < finished.count {
      return completed  // the others go on, as Combine's combineLatest
    }
    phase = .ending(downstream, completion)
    completed.cancels = upstreams.take()
    completed.claimed = started && drain.claim()
    return completed
  }

  /// The subscriber asked for `more`, or returned it for an array: returns the upstreams to ask
  /// and whether the caller claimed the drain; `nil` when it changes nothing (terminal, or the
  /// demand already unlimited).
  mutating func add(_ more: Subscribers.Demand) -> Requested? {
    guard !isTerminal, demand != .unlimited else { return nil }
    demand += more
    requested += more
    releaseHeld()
    let asked = isActive ? upstreams : []
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
    case .active(let downstream):
      if let array = queue.popFirst() { return .value(array, downstream) }
    case .ending(let downstream, let completion):
      if let array = queue.popFirst() { return .value(array, downstream) }
      phase = .terminal
      return .completion(completion, downstream, released: latest.take())
    }
    drain.release()
    return nil
  }

  /// Ends without delivering anything.
  mutating func cancel() -> Cancelled {
    var cancelled = Cancelled(
      downstream: downstream,
      upstreams: upstreams.take(),
      latest: latest.take(),
      queue: queue.takeAll(),
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

  /// Queues the held array (the latest values) when there is demand for it, taking one of the
  /// demand.
  private mutating func releaseHeld() {
    guard held, demand > .none, isActive else { return }
    held = false
    demand -= 1
    var array: [Value] = []
    array.reserveCapacity(latest.count)
    for value in latest {
      guard let value else { preconditionFailure("combineLatest: an array with a value missing") }
      array.append(value)
    }
    queue.append(array)
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
