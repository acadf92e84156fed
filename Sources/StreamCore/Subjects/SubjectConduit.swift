public import Synchronization

/// A subject's view of one subscriber, so that the subject can hold subscribers of any type.
///
/// The hot entry points are closures made where the subscriber's type is known (in the
/// `@inlinable` subscribe path), so a `send` runs code specialised for that subscriber instead
/// of generic code that looks up type metadata at every step.
// Sendable: subclasses guard their state with a lock; the entry points are immutable.
@usableFromInline
class SubjectConduitBase<Output, Failure: Error>: @unchecked Sendable {
  /// Delivers a value if the subscriber has demand for it.
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

  /// Delivers the completion on thread `thread` and ends the subscription.
  @usableFromInline
  func finish(_ completion: Subscribers.Completion<Failure>, from thread: ThreadID) {
    preconditionFailure("SubjectConduitBase.finish(_:from:) must be overridden")
  }
}

/// The subscription a subject hands to each subscriber, with Combine's delivery rules.
///
/// - A value is taken from the subscriber's demand when it is sent, under `lock`: with no demand
///   it is dropped for this subscriber at once.
/// - It is delivered on the sending thread through `gate` (``DeliveryGate``): a `send` from
///   inside the subscriber is delivered at once, re-entrantly; one from another thread waits
///   until the subscriber returns, then is delivered on that thread.
/// - The completion goes through the gate too, so it waits for a delivery under way on another
///   thread and is delivered at once from inside one.
/// - For a current-value subject, a subscriber that missed a value for lack of demand receives
///   the subject's value at its next request (at once if it missed none yet: its first request
///   gets the value), as Combine does. A request made from inside a delivery to the same
///   subscriber doesn't deliver from within the call: it leaves the value to the delivery it is
///   inside, which sends it when the subscriber returns (`currentDeferred`), so a subscriber
///   that requests one value at a time doesn't nest deliveries, however fast others send.
///
/// | State | offer (a send) | request | cancel | completion |
/// |---|---|---|---|---|
/// | live | with demand: takes one, delivers through the gate; without: dropped (`missedCurrent` set) | adds demand; if `missedCurrent`, delivers the subject's value (or, inside a delivery on this thread, sets `currentDeferred`) | ended | ended, `finished` set; the completion delivered through the gate |
/// | ended (`core` nil, subscriber released) | dropped | ignored | ignored | ignored |
///
/// Invariants, checked for every interleaving of two and three threads by
/// `Tests/Interleavings/subject_conduit.pml`: the subscriber is never called by two threads at
/// once, nor beyond its demand, nor after its completion; a request never calls it from inside a
/// call to it; a deferred value is delivered unless the subscription ends first.
///
/// `receive(subscription:)` is called without the gate, as in Combine: a subscriber that
/// requests there may receive a value sent from another thread before it returns.
@usableFromInline
// Sendable: every mutable property is guarded by `lock`; the subscriber is called after it,
// holding `gate`.
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

  /// Held while the subscriber is called.
  @usableFromInline
  let gate = DeliveryGate()

  /// Set, under `lock`, when the completion ends the subscription; read by a value's delivery
  /// once it holds the gate. A value taken from the demand before the completion may reach the
  /// gate after it (both wait for a delivery under way): it is then dropped, so nothing follows
  /// the completion. The gate's lock orders the store before that read.
  @usableFromInline
  let finished = Atomic<Bool>(false)

  // Every `var` below is read and written only under `lock`.

  /// The subscriber, `nil` once the subscription ended.
  @usableFromInline
  @exclusivity(unchecked) var downstream: Slot
  /// The subject's core, `nil` once the subscription ended: what liveness is read from.
  @usableFromInline
  @exclusivity(unchecked) var core: SubjectCore<Output, Failure>?
  @usableFromInline
  @exclusivity(unchecked) var demand = Subscribers.Demand.none
  /// For a current-value subject: the subscriber hasn't received the subject's value since it
  /// missed one for lack of demand, or ever (Combine's conduit's "delivered current value",
  /// negated). Its next request delivers the subject's value.
  @usableFromInline
  @exclusivity(unchecked) var missedCurrent: Bool
  /// A request from inside a delivery to this subscriber, on the thread holding `gate`, left
  /// the subject's value to that delivery, which sends it once the subscriber returns.
  @usableFromInline
  @exclusivity(unchecked) var currentDeferred = false
  /// Whether this conduit has told the core that its subscriber has demand; once is enough.
  @usableFromInline
  @exclusivity(unchecked) var toldCore = false

  /// Whether the subject keeps a current value (`CurrentValueSubject`, `@Published`).
  @usableFromInline
  let keepsLatest: Bool
  @usableFromInline
  let name: StaticString
  @usableFromInline
  let requestEntry: (SubjectConduit, Subscribers.Demand) -> Void
  @usableFromInline
  let cancelEntry: (SubjectConduit) -> Void

  @inlinable
  init(downstream: Downstream, core: SubjectCore<Output, Failure>) {
    self.downstream = Slot(holding: downstream)
    self.core = core
    self.keepsLatest = core.keepsLatest
    self.missedCurrent = core.keepsLatest
    self.name = core.name
    self.requestEntry = { conduit, demand in conduit.specialisedRequest(demand) }
    self.cancelEntry = { conduit in conduit.specialisedCancel() }
    super.init(offerEntry: { base, value, thread in
      unsafeDowncast(base, to: SubjectConduit.self).specialisedOffer(value, from: thread)
    })
  }

  @inlinable
  func specialisedOffer(_ value: Output, from me: ThreadID) {
    let target = lock.withLock { () -> (Downstream, limited: Bool)? in
      guard core != nil, demand > .none else {
        if keepsLatest { missedCurrent = true }
        return nil
      }
      missedCurrent = false
      guard demand != .unlimited else { return (downstream.downstream.unsafelyUnwrapped, false) }
      demand -= 1
      return (downstream.downstream.unsafelyUnwrapped, true)
    }
    // Consumed: binding a copy would retain the subscriber a second time.
    guard let (downstream, limited) = consume target else { return }
    deliver(value, to: downstream, from: me, limited: limited)
  }

  /// Delivers `value` holding the gate, then adds the demand the subscriber returned; if a
  /// request from inside the call left the subject's value to it, delivers that next, and so
  /// on. `limited`: the demand wasn't unlimited when the value was taken from it (unlimited
  /// demand stays so, and then no request can leave a value: none is missed).
  @inlinable
  func deliver(_ first: Output, to downstream: Downstream, from me: ThreadID, limited: Bool) {
    gate.pass(as: me) {
      guard !finished.load(ordering: .relaxed) else { return }
      var more = downstream.receive(first)
      guard limited else { return }
      while more > .none || keepsLatest {
        let next = lock.withLock { () -> Output? in
          demand += more  // even once ended, as Combine's: its mirror shows it
          guard let core, currentDeferred else { return nil }
          currentDeferred = false
          return takeCurrent(from: core)
        }
        guard let next else { return }
        more = downstream.receive(next)
      }
    }
  }

  /// The subject's value, taken from the demand, if the subscriber missed it and has demand;
  /// must run under `lock`. Takes the core's lock inside the conduit's: the core never takes a
  /// conduit's lock while it holds its own.
  @inlinable
  func takeCurrent(from core: SubjectCore<Output, Failure>) -> Output? {
    guard missedCurrent, demand > .none else { return nil }
    missedCurrent = false
    if demand != .unlimited { demand -= 1 }
    return core.currentValue
  }

  @usableFromInline
  override func finish(_ completion: Subscribers.Completion<Failure>, from me: ThreadID) {
    let taken = lock.withLock { () -> Downstream? in
      guard core != nil else { return nil }
      core = nil
      finished.store(true, ordering: .relaxed)
      return downstream.takeDownstream()
    }
    guard let taken else { return }
    gate.pass(as: me) { taken.receive(completion: completion) }
  }  // the subscriber is released here, after its last call

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    requestEntry(self, demand)
  }

  @inlinable
  func specialisedRequest(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let me = ThreadID.current
    var demandedCore: SubjectCore<Output, Failure>?
    let delivery = lock.withLock { () -> (Downstream, Output, limited: Bool)? in
      guard let core else { return nil }
      self.demand += demand
      if !toldCore {
        toldCore = true
        // Read without the core's lock: once set it stays set, and then telling the core
        // would change nothing (a stale `false` only costs the core's lock).
        if !core.requestedUpstream.load(ordering: .relaxed) { demandedCore = core }
      }
      guard missedCurrent else { return nil }
      // From inside a delivery to this subscriber: the delivery sends the value when the
      // subscriber returns, rather than this call nesting another one.
      if gate.isHeld(by: me) {
        currentDeferred = true
        return nil
      }
      guard let value = takeCurrent(from: core) else { return nil }
      return (downstream.downstream.unsafelyUnwrapped, value, self.demand != .unlimited)
    }
    // A passthrough subject asks its upstreams for values once a subscriber has demand.
    demandedCore?.subscriberDemanded()
    guard let (downstream, value, limited) = consume delivery else { return }
    deliver(value, to: downstream, from: me, limited: limited)
  }

  @inlinable
  func cancel() {
    cancelEntry(self)
  }

  @inlinable
  func specialisedCancel() {
    var taken: Downstream?
    let core = lock.withLock { () -> SubjectCore<Output, Failure>? in
      taken = downstream.takeDownstream()
      return self.core.take()
    }
    core?.remove(self)
    _ = taken  // released here, outside the lock; a delivery under way holds its own copy
  }

  @usableFromInline
  var description: String {
    "\(name)"
  }

  /// As Combine's: `parent`, `downstream`, `demand` and `subject`. The subject is shown by its
  /// core (described as the subject, e.g. `PassthroughSubject<Int, Never>`), which the conduit
  /// holds instead of the subject; `nil` once the subscription ended.
  @usableFromInline
  var customMirror: Mirror {
    let (downstream, demand, core) = lock.withLock {
      (self.downstream.downstream, self.demand, self.core)
    }
    return Mirror(
      self,
      children: [
        "parent": core as Any, "downstream": downstream as Any, "demand": demand,
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
/// the subscriber field with metadata it already has, rather than looking up
/// `Optional<Downstream>`'s metadata on every release. `FutureSubscription` uses the same shape.
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
