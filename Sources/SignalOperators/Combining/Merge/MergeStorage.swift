public import StreamCore
public import Synchronization

/// The subscription shared by `Merge` … `Merge8` and `MergeMany`: one per downstream, with one
/// ``MergeSide`` subscriber per upstream.
///
/// Deliveries are serialised by the `draining` bit of `status`: the thread that sets it owns the
/// downstream (and `downstream`) until it clears it; a value that arrives meanwhile is queued
/// under `lock` and delivered by the owner before it lets go, so no sender waits on another's
/// delivery.
///
/// ```
/// status bits: draining (a thread owns delivery), unlimited (downstream demand is unlimited),
///              pending (work for the owner: queued values, a completion, upstream requests),
///              terminal (cancelled or failed)
/// hot path:    unlimited --value: CAS--> unlimited|draining --deliver; CAS--> unlimited
/// otherwise:   every change under `lock`; the owner loops in `drain()` until nothing is left
/// ```
///
/// Demand: once the downstream's demand is unlimited, every upstream is asked for `.unlimited`.
/// Before that, each upstream has at most one value requested or queued at a time (`.max(1)`,
/// asked again when its value has gone downstream and demand remains), so the queue holds at
/// most one value per upstream however the upstreams race, and the downstream never gets more
/// than it asked for.
@usableFromInline
// Sendable: the bookkeeping is guarded by `lock`; `downstream` is only touched by the thread
// that holds the `draining` bit of the atomic `status`; calls out happen outside the lock.
final class MergeStorage<Downstream: Subscriber>: @unchecked Sendable, Subscription {
  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  static var drainingBit: Int { 1 }

  @usableFromInline
  static var unlimitedBit: Int { 2 }

  static var pendingBit: Int { 4 }

  static var terminalBit: Int { 8 }

  /// One upstream's bookkeeping.
  struct Slot {
    var subscription: (any Subscription)?
    /// Requested from this upstream and not yet received.
    var asked = Subscribers.Demand.none
    /// Values from this upstream waiting in `queue`.
    var held = 0
    /// In `idle`, waiting for demand to be asked for a value.
    var idle = false
    var done = false
  }

  private enum Step {
    case value(Output, Int, Downstream)
    /// `dropped`: values still queued for lack of demand, released after the lock.
    case completion(Subscribers.Completion<Failure>, Downstream, dropped: RingBuffer<(Output, Int)>)
    case ask(any Subscription, Subscribers.Demand)
    case release(Downstream?)
    case stop
  }

  /// The subscribing thread owns delivery until the downstream has its subscription.
  ///
  /// An atomic claim rather than a `SerialDrain`: with unlimited demand and no other thread
  /// delivering, a value takes two compare-and-swaps and no lock at all.
  @usableFromInline
  let status = Atomic<Int>(1)

  @usableFromInline
  let lock = Lock()

  /// Only touched by the thread that holds the `draining` bit; `nil` once terminal.
  @usableFromInline
  @exclusivity(unchecked)
  var downstream: Downstream?

  private var slots: [Slot]
  private var demand = Subscribers.Demand.none
  /// Values waiting for demand or for the owner, with the upstream each came from.
  private var queue = RingBuffer<(Output, Int)>()
  private var pendingCompletion: Subscribers.Completion<Failure>?
  private var finishedCount = 0
  private var idle: [Int] = []
  /// The next slot to ask for `.unlimited` once the downstream's demand is unlimited.
  private var unlimitedCursor = 0
  private var cancelled = false
  private var failed = false
  /// The completion went downstream, or the downstream cancelled.
  private var closed = false

  @usableFromInline
  init(downstream: Downstream, count: Int) {
    self.downstream = downstream
    slots = Array(repeating: Slot(), count: count)
    if count == 0 {
      pendingCompletion = .finished
      status.store(Self.drainingBit | Self.pendingBit, ordering: .relaxed)
    }
  }

  // MARK: Downstream

  /// Hands the downstream its subscription, then lets go of delivery.
  @usableFromInline
  func start() {
    downstream?.receive(subscription: self)
    drain(more: .none, from: nil)
  }

  /// Whether upstreams still need subscribing.
  @usableFromInline
  var isClosed: Bool {
    lock.withLock { closed || cancelled || failed }
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let start = lock.withLock { () -> Bool in
      guard !closed, !cancelled else { return false }
      self.demand += demand
      if self.demand == .unlimited {
        status.bitwiseOr(Self.unlimitedBit, ordering: .relaxed)
      }
      return signal()
    }
    if start { drain(more: .none, from: nil) }
  }

  @usableFromInline
  func cancel() {
    let released = lock.withLock {
      () -> (
        downstream: Downstream?, upstreams: [(any Subscription)?],
        queue: RingBuffer<(Output, Int)>, completion: Subscribers.Completion<Failure>?
      )? in
      guard !closed, !cancelled else { return nil }
      cancelled = true
      let pending = pendingCompletion.take()  // a failure is released after the lock
      let upstreams = takeSubscriptions(except: nil)
      let dropped = takeQueue()
      let bits = Self.drainingBit | Self.pendingBit | Self.terminalBit
      let old = status.bitwiseOr(bits, ordering: .acquiringAndReleasing).oldValue
      // Without an owner, this thread owns delivery from now on and releases the downstream.
      let owned = old & Self.drainingBit == 0 ? downstream.take() : nil
      if owned != nil { closed = true }
      return (owned, upstreams, dropped, pending)
    }
    guard let released else { return }
    for upstream in released.upstreams { upstream?.cancel() }
    _ = released
  }

  // MARK: Upstreams

  func receive(subscription: any Subscription, from index: Int) {
    let ask = lock.withLock { () -> Subscribers.Demand? in
      guard !cancelled, !failed, !closed, !slots[index].done, slots[index].subscription == nil
      else { return nil }
      slots[index].subscription = subscription
      if status.load(ordering: .relaxed) & Self.unlimitedBit != 0 {
        slots[index].asked = .unlimited
        return .unlimited
      }
      if demand > .none {
        slots[index].asked = .max(1)
        return .max(1)
      }
      slots[index].idle = true
      idle.append(index)
      return Subscribers.Demand.none
    }
    guard let ask else {
      subscription.cancel()
      return
    }
    if ask > .none { subscription.request(ask) }
  }

  /// Delivers `input` from upstream `index`; lock-free while demand is unlimited and no other
  /// thread is delivering.
  @inlinable
  func receive(_ input: Output, from index: Int) -> Subscribers.Demand {
    let unlimited = Self.unlimitedBit
    let delivering = Self.unlimitedBit | Self.drainingBit
    guard
      status.compareExchange(expected: unlimited, desired: delivering, ordering: .acquiring)
        .exchanged
    else { return receiveContended(input, from: index) }
    _ = downstream?.receive(input)  // unlimited plus anything stays unlimited
    if status.compareExchange(expected: delivering, desired: unlimited, ordering: .releasing)
      .exchanged
    {
      return .none
    }
    drain(more: .none, from: nil)
    return .none
  }

  private enum ValueDecision {
    case drop
    case queued
    case drain
    case deliver(Downstream)
  }

  /// The path for limited demand, a value arriving during another delivery, and the ends.
  @usableFromInline
  func receiveContended(_ input: Output, from index: Int) -> Subscribers.Demand {
    let decision = lock.withLock { () -> ValueDecision in
      guard !cancelled, !failed, !slots[index].done, downstream != nil else { return .drop }
      if slots[index].asked != .unlimited {
        guard slots[index].asked > .none else { return .drop }  // more than it was asked for
        slots[index].asked -= 1
      }
      if demand > .none, queue.isEmpty {
        let old = status.load(ordering: .relaxed)
        if old & Self.drainingBit == 0,
          status.compareExchange(
            expected: old,
            desired: old | Self.drainingBit,
            ordering: .acquiringAndReleasing
          ).exchanged, let downstream
        {
          demand -= 1
          return .deliver(downstream)
        }
      }
      queue.append((input, index))
      slots[index].held += 1
      return signal() ? .drain : .queued
    }
    switch decision {
    case .drop, .queued:
      return .none
    case .drain:
      drain(more: .none, from: nil)
      return .none
    case .deliver(let downstream):
      let more = downstream.receive(input)
      return drain(more: more, from: index)
    }
  }

  func receive(completion: Subscribers.Completion<Failure>, from index: Int) {
    let outcome = lock.withLock {
      () -> (start: Bool, upstreams: [(any Subscription)?]) in
      guard !cancelled, !failed, !slots[index].done else { return (false, []) }
      slots[index].done = true
      let own = slots[index].subscription.take()
      switch completion {
      case .finished:
        finishedCount += 1
        guard finishedCount == slots.count else { return (false, [own]) }
        pendingCompletion = .finished
        return (signal(), [own])
      case .failure:
        // Values already queued, this upstream's own among them, go first while there is
        // demand: they were sent before the failure. Later values are dropped (`failed`).
        failed = true
        pendingCompletion = completion
        status.bitwiseOr(Self.terminalBit, ordering: .relaxed)
        let others = takeSubscriptions(except: index)
        return (signal(), [own] + others)
      }
    }
    if case .failure = completion {
      for (offset, upstream) in outcome.upstreams.enumerated() where offset > 0 {
        upstream?.cancel()
      }
    }
    if outcome.start { drain(more: .none, from: nil) }
  }

  // MARK: Delivery

  /// Sets the `pending` bit, and the `draining` bit too if no thread holds it; returns whether
  /// this thread now owns delivery. Call it under `lock`.
  private func signal() -> Bool {
    let old = status.bitwiseOr(Self.pendingBit, ordering: .acquiringAndReleasing).oldValue
    guard old & Self.drainingBit == 0 else { return false }
    status.bitwiseOr(Self.drainingBit, ordering: .acquiringAndReleasing)
    return true
  }

  /// Delivers what is queued while there is demand, asks upstreams for values, and delivers the
  /// completion; run only by the thread that holds the `draining` bit, which it clears at the
  /// end. `more` is the demand the downstream returned for a value from upstream `index` that
  /// this thread has just delivered; returns the demand to give back to that upstream.
  @usableFromInline
  @discardableResult
  func drain(more: Subscribers.Demand, from index: Int?) -> Subscribers.Demand {
    var more = more
    var delivered = index
    var giveBack = Subscribers.Demand.none
    var caller = index  // only its own value can be given back through `receive`'s return
    while true {
      let step = lock.withLock { () -> Step in
        if let delivered, settle(more, afterValueFrom: delivered, canGiveBack: delivered == caller)
        {
          giveBack = .max(1)
        }
        return nextStep()
      }
      more = .none
      delivered = nil
      caller = nil
      switch step {
      case .value(let input, let from, let downstream):
        more = downstream.receive(input)
        delivered = from
      case .completion(let completion, let downstream, let dropped):
        _ = dropped
        downstream.receive(completion: completion)
        return .none
      case .ask(let upstream, let demand):
        upstream.request(demand)
      case .release(let downstream):
        _ = downstream
        return .none
      case .stop:
        return giveBack
      }
    }
  }

  /// Books the demand returned for a value from `from`, and decides whether that upstream is
  /// asked again: through the return value of its `receive` when it is `caller`, else later.
  /// Returns `true` when the upstream is to get `.max(1)` back from its `receive`.
  private func settle(
    _ more: Subscribers.Demand,
    afterValueFrom from: Int,
    canGiveBack: Bool
  ) -> Bool {
    if more > .none, !cancelled, !closed {
      demand += more
      if demand == .unlimited { status.bitwiseOr(Self.unlimitedBit, ordering: .relaxed) }
    }
    let slot = slots[from]
    guard !slot.done, slot.asked == .none, slot.held == 0, !slot.idle,
      status.load(ordering: .relaxed) & Self.unlimitedBit == 0
    else { return false }
    if canGiveBack, demand > .none {
      slots[from].asked = .max(1)
      return true
    }
    slots[from].idle = true
    idle.append(from)
    return false
  }

  /// Picks the owner's next step; clears the `draining` bit when there is none. Call it under
  /// `lock`.
  private func nextStep() -> Step {
    if cancelled {
      closed = true
      return .release(downstream.take())
    }
    if case .failure = pendingCompletion, queue.isEmpty || demand == .none,
      let downstream = downstream.take()
    {
      return complete(downstream)  // a failure doesn't wait for demand
    }
    if demand > .none, let downstream, let (input, from) = queue.popFirst() {
      slots[from].held -= 1
      demand -= 1
      return .value(input, from, downstream)
    }
    if queue.isEmpty, pendingCompletion != nil, let downstream = downstream.take() {
      return complete(downstream)
    }
    if let ask = nextAsk() { return ask }
    var clear = Self.drainingBit
    if queue.isEmpty, pendingCompletion == nil { clear |= Self.pendingBit }
    status.bitwiseAnd(~clear, ordering: .acquiringAndReleasing)
    return .stop
  }

  private func complete(_ downstream: Downstream) -> Step {
    guard let completion = pendingCompletion.take() else { return .release(downstream) }
    closed = true
    status.bitwiseOr(Self.terminalBit, ordering: .relaxed)
    return .completion(completion, downstream, dropped: takeQueue())
  }

  /// The next upstream request: `.unlimited` to each upstream once demand is unlimited, else
  /// `.max(1)` to an idle upstream while there is demand. Call it under `lock`.
  private func nextAsk() -> Step? {
    if status.load(ordering: .relaxed) & Self.unlimitedBit != 0 {
      while unlimitedCursor < slots.count {
        let index = unlimitedCursor
        unlimitedCursor += 1
        guard !slots[index].done, slots[index].asked != .unlimited,
          let upstream = slots[index].subscription
        else { continue }
        slots[index].asked = .unlimited
        return .ask(upstream, .unlimited)
      }
      return nil
    }
    while demand > .none, let index = idle.popLast() {
      slots[index].idle = false
      guard !slots[index].done, slots[index].asked == .none, slots[index].held == 0,
        let upstream = slots[index].subscription
      else { continue }
      slots[index].asked = .max(1)
      return .ask(upstream, .max(1))
    }
    return nil
  }

  /// Takes every upstream subscription but `index`'s and marks those upstreams done. Call it
  /// under `lock`.
  private func takeSubscriptions(except index: Int?) -> [(any Subscription)?] {
    var taken: [(any Subscription)?] = []
    for offset in slots.indices where offset != index && !slots[offset].done {
      slots[offset].done = true
      taken.append(slots[offset].subscription.take())
    }
    idle = []
    return taken
  }

  /// Empties the queue, returning its values to be released after the lock.
  private func takeQueue() -> RingBuffer<(Output, Int)> {
    queue.takeAll()
  }
}
