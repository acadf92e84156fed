public import Synchronization

/// A subject's view of one subscriber, so that the subject can hold subscribers of any type.
///
/// The hot entry points are closures made where the subscriber's type is known (in the
/// `@inlinable` subscribe path), so a `send` runs code specialised for that subscriber instead
/// of generic code that looks up type metadata at every step. Measured on `passthrough1`, the
/// generic path spent over half its instructions in the runtime's metadata cache.
// Sendable: subclasses guard their state with a lock; the entry points are immutable.
@usableFromInline
class SubjectConduitBase<Output, Failure: Error>: @unchecked Sendable {
  /// Delivers a value if the subscriber has demand (or keeps it as the latest).
  @usableFromInline
  let offerEntry: (SubjectConduitBase, Output, ThreadID) -> Void

  @inlinable
  init(offerEntry: @escaping (SubjectConduitBase, Output, ThreadID) -> Void) {
    self.offerEntry = offerEntry
  }

  /// Calls ``offerEntry``. Not inlined: within this call the conduit is held by its caller, so
  /// the entry closure is called without a retain of its context.
  @inline(never)
  @usableFromInline
  final func offer(_ value: Output, from thread: ThreadID) {
    offerEntry(self, value, thread)
  }

  /// Delivers the completion, after any values already accepted.
  @usableFromInline
  func finish(_ completion: Subscribers.Completion<Failure>) {
    preconditionFailure("SubjectConduitBase.finish(_:) must be overridden")
  }

  /// Releases the subscriber of a conduit that ended with its path open, once no thread can
  /// be calling it there.
  @usableFromInline
  func clearEndedSlot() {
    preconditionFailure("SubjectConduitBase.clearEndedSlot() must be overridden")
  }
}

/// The subscription a subject hands to each subscriber.
///
/// One subscriber never receives two calls at once. Values come from one thread at a time, the
/// subject's delivering thread (`SubjectCore.delivering`). With unlimited demand and nothing
/// waiting, the path is open and that thread calls the subscriber with no lock and no claim (one
/// load; see ``ConduitClaim``). Otherwise the thread that is delivering owns the conduit
/// (`claim`, with ``ReentrantOwner``'s rules):
/// - a `send` from that same thread, from inside the subscriber, is delivered re-entrantly, as
///   Combine does;
/// - a value arriving while another thread delivers a latest value (a request's) takes demand
///   and queues; the owner delivers the queue before it lets go, so nothing accepted is lost
///   and no call overlaps;
/// - the thread that subscribes owns the conduit until `receive(subscription:)` has returned,
///   so nothing from another thread overtakes the subscription.
///
/// ```
/// open --cancel / completion delivered--> terminal (core released; the subscriber too, or,
///   if the path was open, once the subject's delivering thread can't be calling it)
/// ```
///
/// A conduit that ends while its path is open leaves its subscriber in place until the
/// subject's delivering thread can no longer be calling it
/// (``terminate(inDrain:closed:forCompletion:slotLeft:)``, ``clearEndedSlot()``).
// Sendable: all mutable state is guarded by `lock`, except `claim`, an atomic, and
// `downstream`, which the subject's delivering thread also reads without the lock on the open
// path (it is only written under the lock, and never while a thread may be reading it there);
// downstream is called outside the lock.
@usableFromInline
final class SubjectConduit<Slot: SubjectDownstreamSlot>:
  SubjectConduitBase<Slot.Downstream.Input, Slot.Downstream.Failure>, @unchecked Sendable,
  Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  typealias Downstream = Slot.Downstream

  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let lock = Lock()
  /// The subscriber, `nil` once terminal (for a conduit that ended with its path open, once
  /// ``clearEndedSlot()`` has run); always `nil` for a pinned subscriber, which is `pinned`.
  /// Whether the conduit is live is read from `core`.
  ///
  /// The subject's delivering thread reads it without the lock on the open path, so it is
  /// written only under the lock, by the thread that owns `claim` or while none does, and
  /// never while the path is open: a conduit that ends while a thread may be delivering keeps
  /// its subscriber until that thread lets go
  /// (``terminate(inDrain:closed:forCompletion:slotLeft:)``, ``letGo(reopening:)``,
  /// ``clearEndedSlot()``).
  @usableFromInline
  @exclusivity(unchecked) var downstream: Slot
  /// `nil` once terminal (cleared by `terminate()` only).
  @usableFromInline
  @exclusivity(unchecked) var core: SubjectCore<Output, Failure>?
  @usableFromInline
  @exclusivity(unchecked) var demand = Subscribers.Demand.none
  /// The thread delivering to `downstream`, if any, and whether a value may go through without
  /// the lock (``ConduitClaim``): the owner delivers the backlog before it lets go.
  @usableFromInline
  let claim: ConduitClaim
  /// What waits for the owner, or for demand; allocated on first use, which a single-threaded
  /// passthrough subscriber never makes.
  @usableFromInline
  @exclusivity(unchecked) var backlog: SubjectBacklog<Output, Failure>?
  /// Whether this conduit has told the core that its subscriber has demand; once is enough.
  @usableFromInline
  @exclusivity(unchecked) var toldCore = false
  /// The subscriber of a subject's own `sink` (`ClosureSink`, two closures that don't hold
  /// the subscription), kept for the conduit's whole life; `nil` for other subscribers, which
  /// are in `downstream` and released when the conduit ends. Values are delivered through it:
  /// an immutable property is called without the retain and release that a copy of
  /// `downstream` takes out of the lock, and without the lock on the open path.
  @usableFromInline
  let pinned: Slot
  /// Whether `pinned` is set.
  @usableFromInline
  let isPinned: Bool
  @usableFromInline
  let keepsLatest: Bool
  @usableFromInline
  let name: StaticString
  @usableFromInline
  let requestEntry: (SubjectConduit, Subscribers.Demand) -> Void
  @usableFromInline
  let cancelEntry: (SubjectConduit) -> Void

  @inlinable
  init(downstream: Downstream, core: SubjectCore<Output, Failure>, pinned: Bool = false) {
    self.downstream = Slot(holding: pinned ? nil : downstream)
    self.pinned = Slot(holding: pinned ? downstream : nil)
    self.isPinned = pinned
    self.core = core
    self.keepsLatest = core.keepsLatest
    self.name = core.name
    self.claim = ConduitClaim(ownedBy: .current)
    self.requestEntry = { conduit, demand in conduit.specialisedRequest(demand) }
    self.cancelEntry = { conduit in conduit.specialisedCancel() }
    super.init(offerEntry: { base, value, thread in
      unsafeDowncast(base, to: SubjectConduit.self).specialisedOffer(value, from: thread)
    })
  }

  /// Hands the subscription over, then delivers what arrived meanwhile. Runs on the thread
  /// that created the conduit, which owns it until then.
  /// The pinned subscriber; only for a pinned conduit.
  @inlinable
  var pinnedSubscriber: Downstream { pinned.downstream.unsafelyUnwrapped }

  @inlinable
  func start(_ subscriber: Downstream) {
    subscriber.receive(subscription: self)
    drain(subscriber, adding: .none)
  }

  @inlinable
  func specialisedOffer(_ value: Output, from me: ThreadID) {
    // The open path: live, unlimited demand, nothing waiting. Only the subject's delivering
    // thread offers values, and nothing else claims an open conduit, so the value goes down
    // with one load: no lock, no claim, and the demand needs no update (``ConduitClaim``). A
    // re-entrant send from inside the subscriber, with the path still open, goes straight
    // through as well.
    if claim.isOpen {
      if isPinned {
        _ = pinnedSubscriber.receive(value)
      } else {
        // Called where it is stored, without the lock and without a copy: an end meanwhile,
        // even from inside the call, leaves it there until this thread lets go of the
        // subject's deliveries (``terminate(inDrain:closed:forCompletion:slotLeft:)``).
        _ = withBorrowedDownstream { $0.receive(value) }
      }
      return
    }
    // A superseded latest value is released after the lock: its deinit may call back here.
    var superseded: Output?
    if isPinned {
      // Called through `pinned`: nothing is copied out of the lock.
      let claim = lock.withLock { admit(value, from: me, superseding: &superseded) }
      _ = superseded
      guard let claim else { return }
      let more = pinnedSubscriber.receive(value)
      afterDelivery(nil, adding: more, outer: claim == .outer)
      return
    }
    let target = lock.withLock { () -> (Downstream, ReentrantOwner.Claim)? in
      guard let claim = admit(value, from: me, superseding: &superseded) else { return nil }
      return (downstream.downstream.unsafelyUnwrapped, claim)
    }
    _ = superseded
    // Consumed: binding a copy would retain the downstream a second time.
    guard let (downstream, claim) = consume target else { return }
    let more = downstream.receive(value)
    afterDelivery(downstream, adding: more, outer: claim == .outer)
  }

  /// Calls `body` with the subscriber where `downstream` stores it, without the retain and
  /// release that a copy takes (``withBorrowedValue(at:as:_:)``; 40 instructions per value on
  /// `merge8` and `flatMapSubjects8`). Only for the subject's delivering thread, having found
  /// the path open: then nothing replaces or releases the stored subscriber until that thread
  /// lets go of the subject's deliveries, not even a cancel or completion from inside `body`
  /// (``terminate(inDrain:closed:forCompletion:slotLeft:)`` leaves it in place, and
  /// ``clearEndedSlot()`` takes it later). (The subscriber was once moved back into its
  /// storage, a write of the same bits that raced, formally, with the mirror's read under the
  /// lock.)
  @inlinable
  func withBorrowedDownstream<R>(_ body: (borrowing Downstream) -> R) -> R {
    withUnsafePointer(to: &downstream) { stored in
      // `Slot` is `Optional<Downstream>`, live here: its payload is at its start.
      withBorrowedValue(at: UnsafeRawPointer(stored), as: Downstream.self, body)
    }
  }

  /// Decides what becomes of an offered value: `nil` if it is dropped, kept as the latest or
  /// queued for another thread; otherwise how the caller delivers it (its demand is taken).
  /// Must run under the lock.
  ///
  /// Liveness is read from `core`, which is set with `downstream` and cleared when the conduit
  /// ends (the subscriber may stay a little longer), so the check doesn't go through the
  /// subscriber's optional.
  @inlinable
  func admit(
    _ value: Output,
    from me: ThreadID,
    superseding superseded: inout Output?
  ) -> ReentrantOwner.Claim? {
    guard core != nil else { return nil }
    guard demand > .none else {
      if keepsLatest {
        let backlog = makeBacklog()
        superseded = backlog.latest.take()
        backlog.latest = value
      }
      return nil
    }
    superseded = backlog?.latest.take()  // a newer value supersedes it
    demand -= 1
    // Re-entrant: deliver now, the outer call drains. Another thread owns it: queue.
    let verdict = claim.claim(for: me, waiting: backlog?.isWaiting == true)
    guard verdict != .queued else {
      makeBacklog().queue.append(value)
      return nil
    }
    return verdict
  }

  /// Whether values may take the open path (``ConduitClaim``): live, with unlimited demand and
  /// nothing waiting. Must run under the lock.
  @inlinable
  var canOpen: Bool {
    guard core != nil, demand == .unlimited else { return false }
    guard let backlog else { return true }
    return backlog.queue.isEmpty && backlog.pendingCompletion == nil && backlog.latest == nil
  }

  /// After a delivery: the outermost delivery on this thread drains; a re-entrant one only adds
  /// its demand, and the outer one delivers whatever that allows.
  ///
  /// `downstream` is the copy that was delivered to, or `nil` for a pinned subscriber.
  @inlinable
  func afterDelivery(_ downstream: Downstream?, adding more: Subscribers.Demand, outer: Bool) {
    if outer {
      // Nothing waits (the usual case): add the demand and let go in one critical section,
      // without entering the drain loop.
      var ended: Slot?
      let done = lock.withLock { () -> Bool in
        if core != nil {  // live: see `admit`
          if let backlog,
            !backlog.queue.isEmpty || backlog.pendingCompletion != nil || backlog.latest != nil
          {
            return false
          }
          demand += more
        }
        ended = letGo(reopening: canOpen)
        return true
      }
      _ = ended  // released here, outside the lock
      if !done { drain(downstream ?? pinnedSubscriber, adding: more) }
    } else if more > .none {
      lock.withLock { if core != nil { demand += more } }
    }
  }

  @usableFromInline
  override func finish(_ completion: Subscribers.Completion<Failure>) {
    let me = ThreadID.current
    var slotLeft = false
    let released = lock.withLock { () -> Released? in
      guard core != nil else { return nil }
      // Delivered now if no thread owns delivery, or this one does and nothing waits.
      let closed = claim.close()
      guard
        closed.owner == 0
          || (closed.owner == me.rawValue && backlog?.queue.isEmpty != false)
      else {
        makeBacklog().pendingCompletion = completion  // the owner delivers it after the queue
        return nil
      }
      return terminate(closed: closed, forCompletion: true, slotLeft: &slotLeft)
    }
    guard let released else { return }
    (released.downstream ?? pinnedSubscriber).receive(completion: completion)
    // Left in place for the subject's delivering thread: this one, if it is inside a delivery
    // to the subscriber (a completion sent from there), which clears it when it lets go.
    if slotLeft, let core = released.core { core.clearSlot(of: self, ownedBy: me) }
  }

  /// Loops while this thread owns the conduit: adds demand, then delivers queued values, the
  /// latest value or a pending completion, and lets go when nothing is left.
  @inlinable
  func drain(_ downstream: Downstream, adding initial: Subscribers.Demand) {
    var released: Released?
    var ended: Slot?
    ReentrantOwner.run(lock, delivering: downstream, adding: initial) { more in
      guard core != nil else {
        ended = letGo(reopening: false)
        return nil
      }
      demand += more
      if let backlog {
        if !backlog.queue.isEmpty {
          return .deliver(backlog.queue.popFirst()!)
        }
        if let completion = backlog.pendingCompletion {
          // The loop delivers the completion to its own copy; no call below it borrows the
          // stored one (a drain runs only after the borrowed call returned).
          released = terminate(inDrain: true)
          return .complete(completion)
        }
        if demand > .none, let value = backlog.latest {
          backlog.latest = nil
          demand -= 1
          return .deliver(value)
        }
      }
      claim.release(reopening: canOpen)
      return nil
    }
    _ = released
    _ = ended
  }

  /// Lets go of delivery (``ConduitClaim/release(reopening:)``); if the conduit ended while
  /// this thread delivered, also takes the subscriber that ``terminate()`` left to this owner,
  /// to be released after the lock. Must run under the lock, holding the claim.
  @inlinable
  func letGo(reopening: Bool) -> Slot? {
    claim.release(reopening: reopening)
    guard core == nil else { return nil }
    defer { downstream = Slot(holding: nil) }
    return downstream
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    requestEntry(self, demand)
  }

  @inlinable
  func specialisedRequest(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let me = ThreadID.current
    var demandedCore: SubjectCore<Output, Failure>?
    let delivery = lock.withLock { () -> (Downstream, Output, outer: Bool)? in
      guard core != nil else { return nil }
      self.demand += demand
      if !toldCore {
        toldCore = true
        // Read without the core's lock: once set it stays set, and then telling the core
        // would change nothing (a stale `false` only costs the core's lock).
        if core?.requestedUpstream.load(ordering: .relaxed) == false { demandedCore = core }
      }
      guard let backlog, let value = backlog.latest, backlog.queue.isEmpty else {
        // Demand that became unlimited with no thread delivering opens the path here; an owner
        // opens it when it lets go.
        if canOpen { claim.openIfUnowned() }
        return nil
      }
      // Re-entrant request from inside the subscriber: deliver the latest value now, as Combine
      // does. Another thread's owner will deliver it itself.
      let verdict = claim.claim(for: me, waiting: false)
      guard verdict != .queued else { return nil }
      backlog.latest = nil
      self.demand -= 1
      let target = isPinned ? pinnedSubscriber : downstream.downstream.unsafelyUnwrapped
      return (target, value, outer: verdict == .outer)
    }
    // A passthrough subject asks its upstreams for values once a subscriber has demand.
    demandedCore?.subscriberDemanded()
    guard let (downstream, value, outer) = delivery else { return }
    let more = downstream.receive(value)
    afterDelivery(downstream, adding: more, outer: outer)
  }

  @inlinable
  func cancel() {
    cancelEntry(self)
  }

  @inlinable
  func specialisedCancel() {
    var slotLeft = false
    let released = lock.withLock { () -> Released? in
      guard core != nil else { return nil }
      return terminate(slotLeft: &slotLeft)
    }
    if let released, let core = released.core {
      core.remove(self, slotLeft: slotLeft)
    }
  }

  /// Releases the subscriber that ``terminate(inDrain:closed:forCompletion:slotLeft:)`` left
  /// in place because the subject's delivering thread might have been calling it on the open
  /// path; called once no thread can be (``SubjectCore/remove(_:slotLeft:)``,
  /// ``SubjectCore/clearSlot(of:ownedBy:)``).
  @usableFromInline
  override func clearEndedSlot() {
    let taken = lock.withLock { downstream.takeDownstream() }
    _ = taken  // released here, outside the lock
  }

  /// What `terminate()` takes out of the state, to be released after the lock.
  @usableFromInline
  struct Released {
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var core: SubjectCore<Output, Failure>?
    @usableFromInline
    var backlog: SubjectBacklog<Output, Failure>?

    @inlinable
    init(
      downstream: Downstream?,
      core: SubjectCore<Output, Failure>?,
      backlog: SubjectBacklog<Output, Failure>?
    ) {
      self.downstream = downstream
      self.core = core
      self.backlog = backlog
    }
  }

  /// Ends the conduit; must run under the lock.
  ///
  /// If a thread owns delivery, it may be calling the subscriber it copied out of `downstream`
  /// and takes the stored one when it lets go (``letGo(reopening:)``): the subscriber stays
  /// until then. That includes this thread, ending the conduit from inside the subscriber;
  /// then the returned subscriber is a copy, for the completion. `inDrain`: called by the
  /// owner's drain, which holds a copy of its own: it takes the subscriber.
  ///
  /// If the path was open, the subject's delivering thread may be calling the subscriber
  /// where `downstream` stores it (``withBorrowedDownstream(_:)``), even this thread from
  /// inside it: the subscriber stays there (`slotLeft` is set; the returned one is a copy, for
  /// the completion) until the caller has made sure, through the subject, that no thread can
  /// be (``clearEndedSlot()``). (A flag beside ``Released`` rather than in it: a `Bool` field
  /// made `Released?` go through value witnesses, about 500 instructions per `sinkCancel`.)
  /// `closed`: what ``ConduitClaim/close()`` returned, if the caller closed the path already.
  /// `forCompletion`: the caller delivers the completion to the returned subscriber. A cancel
  /// gets none when the subscriber is left in place: copying it would read the slot while the
  /// delivering thread may hold it in a borrowed call (an access that overlaps another thread's
  /// ``withBorrowedDownstream(_:)``).
  @inlinable
  func terminate(
    inDrain: Bool = false,
    closed: (owner: UInt, wasOpen: Bool)? = nil,
    forCompletion: Bool = false,
    slotLeft: inout Bool
  ) -> Released {
    let (owner, wasOpen) = closed ?? claim.close()  // nothing more takes the open path
    defer {
      core = nil
      backlog = nil
    }
    guard owner == 0 || inDrain else {
      // A thread delivers through `downstream`; it lets go of it.
      let copy = owner == ThreadID.current.rawValue ? downstream.downstream : nil
      return Released(downstream: copy, core: core, backlog: backlog)
    }
    if wasOpen, !isPinned {
      slotLeft = true
      // The completion is delivered by the delivering thread itself, or with none delivering.
      let copy = forCompletion ? downstream.downstream : nil
      return Released(downstream: copy, core: core, backlog: backlog)
    }
    defer { downstream = Slot(holding: nil) }
    return Released(downstream: downstream.downstream, core: core, backlog: backlog)
  }

  /// ``terminate(inDrain:closed:forCompletion:slotLeft:)`` where the path can't have been open:
  /// in the owner's drain, or while the subscribing thread owns the conduit.
  @inlinable
  func terminate(inDrain: Bool = false) -> Released {
    var slotLeft = false
    let released = terminate(inDrain: inDrain, slotLeft: &slotLeft)
    assert(!slotLeft, "SubjectConduit: ended with its path open where it can't have been")
    return released
  }

  /// The backlog, allocated on first use; must run under the lock.
  @inlinable
  func makeBacklog() -> SubjectBacklog<Output, Failure> {
    if let backlog { return backlog }
    let made = SubjectBacklog<Output, Failure>()
    backlog = made
    return made
  }

  @usableFromInline
  var description: String {
    "\(name)"
  }

  /// As Combine's: `parent`, `downstream`, `demand` and `subject`. The subject is shown by its
  /// core (described as the subject, e.g. `PassthroughSubject<Int, Never>`), which the conduit
  /// holds instead of the subject; `nil` once the subscription ended, when the demand shows as
  /// none (a request or returned demand after the end counts for nothing).
  @usableFromInline
  var customMirror: Mirror {
    let (downstream, demand, core) = lock.withLock {
      (
        self.core == nil ? nil : (self.downstream.downstream ?? pinned.downstream), self.demand,
        self.core
      )
    }
    return Mirror(
      self,
      children: [
        "parent": core as Any, "downstream": downstream as Any,
        "demand": core == nil ? Subscribers.Demand.none : demand,
        "subject": core as Any,
      ]
    )
  }

  @usableFromInline
  var playgroundDescription: Any { description }
}

/// How a conduit holds its subscriber: as an `Optional` of it, the only conformer.
///
/// The conduit is generic over the optional itself, so that its unspecialised `deinit` destroys
/// the subscriber fields with metadata it already has: generic over the subscriber, it looked
/// up `Optional<Downstream>`'s metadata on every release (about 325 instructions per `sink`).
/// `FutureSubscription` uses the same shape.
@usableFromInline
protocol SubjectDownstreamSlot {
  associatedtype Downstream: Subscriber

  /// The subscriber, or `nil`.
  var downstream: Downstream? { get }

  /// Holds `downstream`.
  init(holding downstream: Downstream?)

  /// Moves the subscriber out, leaving the slot empty (no retain and release, as a copy and
  /// an overwrite would cost).
  mutating func takeDownstream() -> Downstream?
}

extension Optional: SubjectDownstreamSlot where Wrapped: Subscriber {
  @usableFromInline
  typealias Downstream = Wrapped

  @inlinable
  var downstream: Wrapped? { self }

  @inlinable
  init(holding downstream: Wrapped?) {
    self = downstream
  }

  @inlinable
  mutating func takeDownstream() -> Wrapped? {
    take()
  }
}

/// A conduit's rarely used state: values queued for the owning thread, the latest value of a
/// current-value subject, and a completion waiting behind the queue.
///
/// A class, so that the conduit's unspecialised `deinit` releases it without looking up type
/// metadata for each generic field. Only touched under the owning conduit's lock.
// Sendable: only accessed under the owning conduit's lock.
@usableFromInline
final class SubjectBacklog<Output, Failure: Error>: @unchecked Sendable {
  /// Values offered by another thread while this conduit's owner was delivering (the subject's
  /// delivering thread, while a `request(_:)` on another thread delivers a kept value, say);
  /// their demand is already taken.
  ///
  /// A `RingBuffer`: the owner can fall behind and this queue grow long, and an array's O(n)
  /// `removeFirst()` then made every delivery slower the longer the queue. (Measured when every
  /// sending thread delivered itself: `contended4x2`, four threads into one subject with two
  /// sinks, read 25 to 30 times OpenCombine's time per send on a loaded machine with an array,
  /// about 0.3 of it with this queue.)
  @usableFromInline
  @exclusivity(unchecked) var queue = RingBuffer<Output>()
  /// For a current-value subject: the value to send as soon as there is demand.
  @usableFromInline
  @exclusivity(unchecked) var latest: Output?
  /// A completion that arrived while another thread was delivering, or behind queued values.
  @usableFromInline
  @exclusivity(unchecked) var pendingCompletion: Subscribers.Completion<Failure>?

  @inlinable
  init(latest: Output? = nil) {
    self.latest = latest
  }

  /// Whether something must be delivered before a new value may go straight through.
  @inlinable
  var isWaiting: Bool {
    !queue.isEmpty || pendingCompletion != nil
  }
}

/// A conduit's owner word: which thread delivers through the lock, or that the open path is
/// open.
///
/// The word holds the owning thread's ``ThreadID`` (0 when no thread delivers), or ``openBit``
/// alone: the path is open, so a value may be delivered without the conduit's lock and without
/// a claim. The subscriber is live, its demand is unlimited (so taking demand changes nothing),
/// and nothing waits.
///
/// Only lock holders change the word, so plain loads and stores do, and the open path reads it
/// with one load (``isOpen``). That path needs no claim because only the subject's delivering
/// thread offers values (`SubjectCore.delivering`), one value at a time, and nothing else
/// claims an open conduit: a request claims only to deliver a latest value, which waits only
/// while demand is 0. So while that thread delivers on the open path, the word changes only
/// when the conduit ends (``close()``), and the end leaves the subscriber in place for it
/// (`SubjectConduit.terminate(inDrain:closed:forCompletion:slotLeft:)`). A re-entrant send
/// from inside the subscriber finds the path open and delivers at once, as Combine does.
///
/// Everything else runs under the conduit's lock and first closes the path: a value that can't
/// take it (limited demand, something waiting) claims under the lock, and the owner reopens the
/// path when it lets go (``release(reopening:)``) if the conditions still hold. So deliveries
/// stay serialised, and what arrives during an owner's delivery is delivered by it before it
/// lets go.
///
/// A thread's identity is a pointer (`pthread_self()`) or a Windows thread id, both at least
/// 4-aligned, so bit 0 is free for ``openBit``.
@usableFromInline
struct ConduitClaim: ~Copyable, Sendable {
  @usableFromInline
  static var openBit: UInt { 1 }

  @usableFromInline
  let word: Atomic<UInt>

  /// Owned by `thread` (the subscribing thread, until the subscriber has its subscription),
  /// closed.
  @inlinable
  init(ownedBy thread: ThreadID) {
    word = Atomic(thread.rawValue)
  }

  /// Whether the path is open, for the subject's delivering thread: it then delivers without
  /// the lock.
  @inlinable
  var isOpen: Bool {
    // Acquiring: pairs with the releasing store that opened it, after the state it reflects.
    word.load(ordering: .acquiring) == Self.openBit
  }

  /// Closes the open path; returns the owner (0 if none) and whether the path was open. Call
  /// it under the lock.
  @inlinable
  func close() -> (owner: UInt, wasOpen: Bool) {
    let current = word.load(ordering: .relaxed)
    guard current == Self.openBit else { return (current, false) }
    word.store(0, ordering: .relaxed)
    return (0, true)
  }

  /// Claims delivery for `thread`, or says why it can't (as ``ReentrantOwner``'s). Call it
  /// under the lock; it closes the path (the owner reopens it when it lets go).
  @inlinable
  func claim(for thread: ThreadID, waiting: @autoclosure () -> Bool) -> ReentrantOwner.Claim {
    let owner = close().owner
    guard owner != 0 else {
      word.store(thread.rawValue, ordering: .relaxed)
      return .outer
    }
    return owner == thread.rawValue && !waiting() ? .reentrant : .queued
  }

  /// Lets go of delivery, opening the path if `reopening`. Call it under the lock, holding the
  /// claim, in the critical section that found nothing more to deliver.
  @inlinable
  func release(reopening: Bool) {
    // Holding the claim with the path closed, nothing else changes the word.
    word.store(reopening ? Self.openBit : 0, ordering: .releasing)
  }

  /// Opens the path when no thread delivers. Call it under the lock when the conditions hold.
  @inlinable
  func openIfUnowned() {
    // Closed and unowned: nothing else changes the word while this thread holds the lock.
    if word.load(ordering: .relaxed) == 0 {
      word.store(Self.openBit, ordering: .releasing)
    }
  }
}
