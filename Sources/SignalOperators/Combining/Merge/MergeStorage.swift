public import StreamCore
public import Synchronization

/// The delivery claim of ``MergeStorage``: the serial drain's protocol (whoever finds work and
/// no one delivering delivers until nothing is left; others record work and leave), kept in an
/// atomic word beside the lock so that the common case needs no lock at all.
///
/// The word holds two bits, and so four values:
///
/// ```
/// 0                  nobody delivers; the lock-free path is closed (demand is limited, values
///                    wait for demand, or the merge is ending)
/// open               nobody delivers; a value may take the lock-free path
/// claimed            a thread owns delivery (and the subscriber), or the merge ended for good
/// open | claimed     a value is on the lock-free path
///
/// lock-free path:    open --claimFast()--> open|claimed --deliver; releaseFast()--> open
/// work recorded:     any --signal(), under the lock--> claimed (the caller owns delivery if it
///                    was not claimed; a value on the lock-free path finds `open` gone and
///                    drains when it is done)
/// drain ends:        claimed --release(reopening:), under the lock--> open or 0
/// ```
///
/// Only the lock-free path changes the word outside the lock, and only from `open` or from
/// `open | claimed`; every other change is made under the lock.
///
/// `flatMap` uses the same word beside its ``SerialDrain`` flag (which stays the authority under
/// its lock), so that a value delivered at once lets go of delivery without a second lock round
/// trip. There the values mean:
///
/// ```
/// 0                  the drain flag says who delivers (nobody on the fast path)
/// open | claimed     a value is being delivered; the drain flag is held for it
/// open               that value's delivery let go without the lock: the drain flag is still
///                    set, on behalf of nobody; the next to take the word owns the drain
/// claimed            work was recorded during the delivery: its thread drains when it is done
///
/// claimed under the lock, demand unlimited:  0 --beginFast()--> open|claimed
///                                            open --takeLetGo()--> open|claimed
/// delivered:         open|claimed --releaseFast()--> open
/// work recorded while the flag was held, under the lock:
///                    open|claimed --wake()--> claimed; open --wake()--> 0 (the caller drains)
/// release refused:   claimed --release(reopening: false), by the deliverer--> 0, then it drains
/// ```
///
/// Outside the lock, only the deliverer changes the word (`releaseFast()`, and the release
/// after a refused one), and never from `open`: so under the lock, `open` is taken with a load
/// and a store (`takeLetGo()`), not a compare-and-swap.
@usableFromInline
struct MergeClaim: ~Copyable {
  /// A thread owns delivery.
  @usableFromInline static var claimedBit: Int { 1 }

  /// The lock-free path is open: demand is unlimited, the merge is active, nothing is queued.
  @usableFromInline static var openBit: Int { 2 }

  /// The claim; for `merge`, the subscribing thread owns delivery until the subscriber has its
  /// subscription.
  @usableFromInline let word: Atomic<Int>

  /// Claimed (`merge`: the subscribing thread owns delivery), or 0 (`flatMap`: the drain flag
  /// says who delivers).
  @inlinable
  init(claimed: Bool = true) {
    word = Atomic(claimed ? MergeClaim.claimedBit : 0)
  }

  /// Claims delivery for the lock-free path: `true` when the path is open and no thread
  /// delivers.
  @inlinable
  func claimFast() -> Bool {
    word.compareExchange(
      expected: Self.openBit,
      desired: Self.openBit | Self.claimedBit,
      ordering: .acquiring
    ).exchanged
  }

  /// Ends a delivery on the lock-free path: `true` when nothing happened meanwhile; `false`
  /// when work was recorded, and the caller, still holding the claim, must drain.
  @inlinable
  func releaseFast() -> Bool {
    word.compareExchange(
      expected: Self.openBit | Self.claimedBit,
      desired: Self.openBit,
      ordering: .releasing
    ).exchanged
  }

  /// Claims delivery if no thread holds it, for a value delivered at once; leaves the claim
  /// alone otherwise. Call it under the lock.
  func claimIfFree() -> Bool {
    let old = word.load(ordering: .relaxed)
    guard old & Self.claimedBit == 0 else { return false }
    return word.compareExchange(
      expected: old,
      desired: Self.claimedBit,
      ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// Announces work recorded under the lock: closes the lock-free path and claims delivery;
  /// `true` when no thread held the claim, so the caller now drains. Call it under the lock.
  func signal() -> Bool {
    let old = word.exchange(Self.claimedBit, ordering: .acquiringAndReleasing)
    return old & Self.claimedBit == 0
  }

  /// Gives the claim back when the drain finds nothing left, opening the lock-free path if
  /// `reopening`. Call it under the lock, holding the claim. (`flatMap`: the deliverer whose
  /// ``releaseFast()`` was refused, or who took the word with ``takeLetGo()`` and delivers
  /// through the lock after all, calls it with `false`, lock or not: nothing else changes
  /// `claimed` or `open | claimed` to anything but `claimed`.)
  @inlinable
  func release(reopening: Bool) {
    // Holding the claim, nothing else changes the word: a plain store is enough.
    word.store(reopening ? Self.openBit : 0, ordering: .releasing)
  }

  // MARK: flatMap

  /// `flatMap`: a value delivered at once, with unlimited demand, that claimed the drain flag
  /// under the lock: its delivery may let go with ``releaseFast()``. Call it under the lock,
  /// with the word at 0 (it is, while the drain flag was free).
  @inlinable
  func beginFast() {
    word.store(Self.openBit | Self.claimedBit, ordering: .releasing)
  }

  /// `flatMap`, under the lock: takes over the drain flag that the last fast delivery left set
  /// when it let go (`open` to `open | claimed`), and says whether it did. A load and a store
  /// rather than a compare-and-swap: at `open`, nothing changes the word outside the lock.
  @inlinable
  func takeLetGo() -> Bool {
    // Acquiring: pairs with the releasing `releaseFast()` of the delivery that let go.
    guard word.load(ordering: .acquiring) == Self.openBit else { return false }
    word.store(Self.openBit | Self.claimedBit, ordering: .relaxed)
    return true
  }

  /// `flatMap`: whether the last fast delivery let go and nobody took the drain flag since.
  @inlinable
  var isLetGo: Bool {
    word.load(ordering: .relaxed) == Self.openBit
  }

  /// `flatMap`'s `cancel()`, under the lock: whether a fast delivery is under way (it calls the
  /// downstream unretained, so the caller must leave the downstream to it); if so, its release
  /// is refused, and it drains, which lets go of what the cancel left.
  @inlinable
  func interruptFast() -> Bool {
    var current = word.load(ordering: .acquiring)
    while current == Self.openBit | Self.claimedBit {
      let (exchanged, original) = word.compareExchange(
        expected: current,
        desired: Self.claimedBit,
        ordering: .acquiringAndReleasing
      )
      if exchanged { return true }
      current = original
    }
    return current == Self.claimedBit
  }

  /// `flatMap`, at the end of a critical section that recorded work while the drain flag was
  /// held (by this section's view): makes sure a thread delivers it. Call it under the lock. A
  /// fast delivery under way is told to drain when it is done (`false`); one that let go
  /// meanwhile, leaving the flag set on behalf of nobody, is taken over: `true`, the caller now
  /// owns the drain and runs it after the lock. `false` as well when the flag's holder delivers
  /// through the lock, which finds the work itself.
  @inlinable
  func wake() -> Bool {
    var current = word.load(ordering: .acquiring)
    while true {
      let desired: Int
      switch current {
      case Self.openBit | Self.claimedBit: desired = Self.claimedBit
      case Self.openBit: desired = 0
      default: return false
      }
      let (exchanged, original) = word.compareExchange(
        expected: current,
        desired: desired,
        ordering: .acquiringAndReleasing
      )
      if exchanged { return desired == 0 }
      current = original
    }
  }
}

/// The subscription shared by `Merge` … `Merge8` and `MergeMany`: one per downstream, with one
/// ``MergeSide`` subscriber per upstream.
///
/// The bookkeeping is ``MergeState``, changed only under `lock`; deliveries are serialised by
/// ``MergeClaim``: the thread that holds it owns the downstream (and `downstream`) until it
/// gives it back; a value that arrives meanwhile is queued under `lock` and delivered by the
/// owner before it lets go, so no sender waits on another's delivery. With unlimited demand and
/// nobody delivering, a value takes two compare-and-swaps and no lock.
///
/// Demand: once the downstream's demand is unlimited, every upstream is asked for `.unlimited`.
/// Before that, each upstream has at most one value requested or queued at a time (`.max(1)`,
/// asked again when its value has gone downstream and demand remains), so the queue holds at
/// most one value per upstream however the upstreams race, and the downstream never gets more
/// than it asked for.
@usableFromInline
// Sendable: `state` is guarded by `lock`; `downstream` is only touched by the thread that holds
// `claim`; calls out happen outside the lock.
final class MergeStorage<Downstream: Subscriber>: @unchecked Sendable, Subscription {
  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  typealias Failure = Downstream.Failure

  typealias State = MergeState<Output, Failure>

  /// Who delivers, and whether a value may go down without the lock.
  @usableFromInline
  let claim = MergeClaim()

  @usableFromInline
  let lock = Lock()

  /// Only touched by the thread that holds `claim`; `nil` once terminal. Not part of `state`:
  /// the lock-free path calls it without the lock.
  @usableFromInline
  @exclusivity(unchecked)
  var downstream: Downstream?

  /// Guarded by `lock`.
  @exclusivity(unchecked)
  private var state: State

  @usableFromInline
  init(downstream: Downstream, count: Int) {
    self.downstream = downstream
    state = State(count: count)
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
    lock.withLock { !state.isActive }
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let start = lock.withLock { state.request(demand) && claim.signal() }
    if start { drain(more: .none, from: nil) }
  }

  @usableFromInline
  func cancel() {
    var owner = false
    let cancelled = lock.withLock { () -> State.Cancelled? in
      guard let cancelled = state.cancel() else { return nil }
      // Without an owner, this thread owns delivery from now on and releases the downstream.
      owner = claim.signal()
      return cancelled
    }
    guard let cancelled else { return }
    for upstream in cancelled.cancels { upstream.cancel() }
    if owner { downstream = nil }  // holding the claim, after the lock
    _ = cancelled  // the values and a failure not delivered are released here
  }

  // MARK: Upstreams

  func receive(subscription: any Subscription, from index: Int) {
    let subscribed = lock.withLock { state.subscribed(subscription, at: index) }
    switch subscribed {
    case .cancel:
      subscription.cancel()
    case .keep:
      break
    case .request(let demand):
      subscription.request(demand)
    }
  }

  /// Delivers `input` from upstream `index`; lock-free while demand is unlimited and no other
  /// thread is delivering.
  @inlinable
  func receive(_ input: Output, from index: Int) -> Subscribers.Demand {
    guard claim.claimFast() else { return receiveContended(input, from: index) }
    _ = withBorrowedDownstream { $0.receive(input) }  // unlimited plus anything stays unlimited
    if claim.releaseFast() { return .none }
    drain(more: .none, from: nil)
    return .none
  }

  /// What a value on the contended path leads to after the lock.
  private enum ValueDecision {
    case nothing
    case drain
    case deliver
  }

  /// The path for limited demand, a value arriving during another delivery, and the ends.
  @usableFromInline
  func receiveContended(_ input: Output, from index: Int) -> Subscribers.Demand {
    let decision = lock.withLock { () -> ValueDecision in
      switch state.receive(input, from: index, claim: { claim.claimIfFree() }) {
      case .dropped:
        return .nothing
      case .queued:
        return claim.signal() ? .drain : .nothing
      case .deliver:
        return .deliver
      }
    }
    switch decision {
    case .nothing:
      return .none
    case .drain:
      drain(more: .none, from: nil)
      return .none
    case .deliver:
      let more = withBorrowedDownstream { $0.receive(input) }
      return drain(more: more, from: index)
    }
  }

  func receive(completion: Subscribers.Completion<Failure>, from index: Int) {
    var start = false
    let completed = lock.withLock { () -> State.Completed in
      let completed = state.complete(completion, at: index)
      if completed.wakesOwner { start = claim.signal() }
      return completed
    }
    for upstream in completed.cancels { upstream.cancel() }
    _ = completed  // the upstream's own subscription is released here
    if start { drain(more: .none, from: nil) }
  }

  // MARK: Delivery

  /// Calls `body` with the subscriber where `downstream` stores it, without the retain and
  /// release a copy takes (``withBorrowedValue(at:as:_:)``).
  /// Only for the thread that holds `claim`, before the state is terminal: until that thread
  /// lets go, nothing else writes `downstream`, and a cancel or completion, even one from
  /// inside `body`, leaves the subscriber to it (``cancel()``, ``drain(more:from:)``).
  @inlinable
  func withBorrowedDownstream<R>(_ body: (borrowing Downstream) -> R) -> R {
    withUnsafePointer(to: &downstream) { stored in
      // Set until the state is terminal: an optional's payload is at its start.
      withBorrowedValue(at: UnsafeRawPointer(stored), as: Downstream.self, body)
    }
  }

  /// Delivers what is queued while there is demand, asks upstreams for values, and delivers the
  /// completion; run only by the thread that holds the claim, which it gives back at the end
  /// (or keeps for good once terminal). `more` is the demand the downstream returned for a
  /// value from upstream `index` that this thread has just delivered; returns the demand to
  /// give back to that upstream.
  @usableFromInline
  @discardableResult
  func drain(more: Subscribers.Demand, from index: Int?) -> Subscribers.Demand {
    var more = more
    var delivered = index
    var giveBack = Subscribers.Demand.none
    var caller = index  // only its own value can be given back through `receive`'s return
    while true {
      let step = lock.withLock { () -> State.Step in
        if let delivered,
          state.delivered(from: delivered, more: more, canGiveBack: delivered == caller)
        {
          giveBack = .max(1)
        }
        let step = state.nextStep()
        if case .stop(let reopen) = step { claim.release(reopening: reopen) }
        return step
      }
      more = .none
      delivered = nil
      caller = nil
      switch step {
      case .value(let input, let from):
        more = withBorrowedDownstream { $0.receive(input) }
        delivered = from
      case .completion(let completion, let dropped):
        let downstream = self.downstream.take()
        _ = dropped
        downstream?.receive(completion: completion)
        return .none
      case .request(let upstream, let demand):
        upstream.request(demand)
      case .release:
        downstream = nil
        return .none
      case .stop:
        return giveBack
      }
    }
  }
}
