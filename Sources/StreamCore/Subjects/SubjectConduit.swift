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
  let offerEntry: (SubjectConduitBase, Output) -> Void

  @inlinable
  init(offerEntry: @escaping (SubjectConduitBase, Output) -> Void) {
    self.offerEntry = offerEntry
  }

  /// Calls ``offerEntry``. Not inlined: within this call the conduit is held by its caller, so
  /// the entry closure is called without a retain of its context.
  @inline(never)
  @usableFromInline
  final func offer(_ value: Output) {
    offerEntry(self, value)
  }

  /// Delivers the completion, after any values already accepted.
  @usableFromInline
  func finish(_ completion: Subscribers.Completion<Failure>) {
    preconditionFailure("SubjectConduitBase.finish(_:) must be overridden")
  }
}

/// The subscription a subject hands to each subscriber.
///
/// One subscriber never receives two calls at once. The thread that is delivering owns the
/// conduit (`owner`, a ``ReentrantOwner``):
/// - a `send` from that same thread, from inside the subscriber, is delivered re-entrantly, as
///   Combine does;
/// - a `send` from another thread takes demand and queues its value; the owner delivers the
///   queue before it lets go, so nothing accepted is lost and no call overlaps;
/// - the thread that subscribes owns the conduit until `receive(subscription:)` has returned,
///   so nothing from another thread overtakes the subscription.
///
/// ```
/// open --cancel / completion delivered--> terminal (downstream and core released)
/// ```
// Sendable: all mutable state is guarded by `lock`; downstream is called outside it.
@usableFromInline
final class SubjectConduit<Downstream: Subscriber>:
  SubjectConduitBase<Downstream.Input, Downstream.Failure>, @unchecked Sendable, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let lock = Lock()
  /// `nil` once terminal.
  @usableFromInline
  @exclusivity(unchecked) var downstream: Downstream?
  /// `nil` once terminal, like `downstream` (both are cleared by `terminate()` only).
  @usableFromInline
  @exclusivity(unchecked) var core: SubjectCore<Output, Failure>?
  @usableFromInline
  @exclusivity(unchecked) var demand = Subscribers.Demand.none
  /// The thread delivering to `downstream`, if any: it delivers the backlog before it lets go
  /// (``ReentrantOwner``, not a ``SerialDrain``; the reason is at its definition).
  @usableFromInline
  @exclusivity(unchecked) var owner: ReentrantOwner
  /// What waits for the owner, or for demand; allocated on first use, which a single-threaded
  /// passthrough subscriber never makes.
  @usableFromInline
  @exclusivity(unchecked) var backlog: SubjectBacklog<Output, Failure>?
  /// Whether this conduit has told the core that its subscriber has demand; once is enough.
  @usableFromInline
  @exclusivity(unchecked) var toldCore = false
  /// The subscriber again, kept for the conduit's whole life, for a subject's own `sink`
  /// (`ClosureSink`, two closures that don't hold the subscription); `nil` for other
  /// subscribers, which are released when the conduit ends. Values are delivered through it:
  /// an immutable property is called without the retain and release that a copy of
  /// `downstream` takes out of the lock. `downstream` still says whether the conduit is live.
  @usableFromInline
  let pinned: Downstream?
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
    self.downstream = downstream
    self.pinned = pinned ? downstream : nil
    self.isPinned = pinned
    self.core = core
    self.keepsLatest = core.keepsLatest
    self.name = core.name
    self.owner = ReentrantOwner(ownedBy: .current)
    self.requestEntry = { conduit, demand in conduit.specialisedRequest(demand) }
    self.cancelEntry = { conduit in conduit.specialisedCancel() }
    super.init(offerEntry: { base, value in
      unsafeDowncast(base, to: SubjectConduit.self).specialisedOffer(value)
    })
  }

  /// Hands the subscription over, then delivers what arrived meanwhile. Runs on the thread
  /// that created the conduit, which owns it until then.
  @inlinable
  func start(_ subscriber: Downstream) {
    subscriber.receive(subscription: self)
    drain(subscriber, adding: .none)
  }

  @inlinable
  func specialisedOffer(_ value: Output) {
    let me = ThreadID.current
    // A superseded latest value is released after the lock: its deinit may call back here.
    var superseded: Output?
    if isPinned {
      // Called through `pinned`: nothing is copied out of the lock.
      let claim = lock.withLock { admit(value, from: me, superseding: &superseded) }
      _ = superseded
      guard let claim else { return }
      let more = pinned.unsafelyUnwrapped.receive(value)
      afterDelivery(nil, adding: more, outer: claim == .outer)
      return
    }
    let target = lock.withLock { () -> (Downstream, ReentrantOwner.Claim)? in
      guard let claim = admit(value, from: me, superseding: &superseded) else { return nil }
      return (downstream.unsafelyUnwrapped, claim)
    }
    _ = superseded
    // Consumed: binding a copy would retain the downstream a second time.
    guard let (downstream, claim) = consume target else { return }
    let more = downstream.receive(value)
    afterDelivery(downstream, adding: more, outer: claim == .outer)
  }

  /// Decides what becomes of an offered value: `nil` if it is dropped, kept as the latest or
  /// queued for another thread; otherwise how the caller delivers it (its demand is taken).
  /// Must run under the lock.
  ///
  /// Liveness is read from `core`, which is set and cleared together with `downstream`, so
  /// the check doesn't go through the subscriber's optional.
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
    let claim = owner.claim(for: me, waiting: backlog?.isWaiting == true)
    guard claim != .queued else {
      makeBacklog().queue.append(value)
      return nil
    }
    return claim
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
      let done = lock.withLock { () -> Bool in
        if core != nil {  // live: see `admit`
          if let backlog,
            !backlog.queue.isEmpty || backlog.pendingCompletion != nil || backlog.latest != nil
          {
            return false
          }
          demand += more
        }
        owner.release()
        return true
      }
      if !done { drain(downstream ?? pinned.unsafelyUnwrapped, adding: more) }
    } else if more > .none {
      lock.withLock { if self.downstream != nil { demand += more } }
    }
  }

  @usableFromInline
  override func finish(_ completion: Subscribers.Completion<Failure>) {
    let me = ThreadID.current
    let released = lock.withLock { () -> Released? in
      guard downstream != nil else { return nil }
      guard owner.admits(me, waiting: backlog?.queue.isEmpty == false) else {
        makeBacklog().pendingCompletion = completion  // the owner delivers it after the queue
        return nil
      }
      return terminate()
    }
    released?.downstream?.receive(completion: completion)
  }

  /// Loops while this thread owns the conduit: adds demand, then delivers queued values, the
  /// latest value or a pending completion, and lets go when nothing is left.
  @inlinable
  func drain(_ downstream: Downstream, adding initial: Subscribers.Demand) {
    var released: Released?
    ReentrantOwner.run(lock, delivering: downstream, adding: initial) { more in
      guard self.downstream != nil else {
        owner.release()
        return nil
      }
      demand += more
      if let backlog {
        if !backlog.queue.isEmpty {
          return .deliver(backlog.queue.popFirst()!)
        }
        if let completion = backlog.pendingCompletion {
          released = terminate()
          return .complete(completion)
        }
        if demand > .none, let value = backlog.latest {
          backlog.latest = nil
          demand -= 1
          return .deliver(value)
        }
      }
      owner.release()
      return nil
    }
    _ = released
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
      guard let downstream else { return nil }
      self.demand += demand
      if !toldCore {
        toldCore = true
        demandedCore = core
      }
      guard let backlog, let value = backlog.latest, backlog.queue.isEmpty else { return nil }
      // Re-entrant request from inside the subscriber: deliver the latest value now, as Combine
      // does. Another thread's owner will deliver it itself.
      let claim = owner.claim(for: me, waiting: false)
      guard claim != .queued else { return nil }
      backlog.latest = nil
      self.demand -= 1
      return (downstream, value, outer: claim == .outer)
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
    let released = lock.withLock { () -> Released? in
      guard downstream != nil else { return nil }
      return terminate()
    }
    if let released, let core = released.core {
      core.remove(self)
    }
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
  @inlinable
  func terminate() -> Released {
    defer {
      downstream = nil
      core = nil
      backlog = nil
    }
    return Released(downstream: downstream, core: core, backlog: backlog)
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
    let (downstream, demand, core) = lock.withLock { (self.downstream, self.demand, self.core) }
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

/// A conduit's rarely used state: values queued for the owning thread, the latest value of a
/// current-value subject, and a completion waiting behind the queue.
///
/// A class, so that the conduit's unspecialised `deinit` releases it without looking up type
/// metadata for each generic field. Only touched under the owning conduit's lock.
// Sendable: only accessed under the owning conduit's lock.
@usableFromInline
final class SubjectBacklog<Output, Failure: Error>: @unchecked Sendable {
  /// Values other threads sent while the owner was delivering; their demand is already taken.
  ///
  /// A `RingBuffer`: when several threads send at once the owner can fall behind and this queue
  /// grow long, and an array's O(n) `removeFirst()` then made every delivery slower the longer
  /// the queue (`contended4x2`, four threads into one subject with two sinks: 25 to 30 times
  /// OpenCombine's time per send on a loaded machine; about 0.3 of it with this queue). The
  /// uncontended paths cost the same either way (`currentValue` 481, `passthrough1` 467).
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
