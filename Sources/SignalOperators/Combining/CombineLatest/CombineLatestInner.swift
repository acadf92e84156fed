public import StreamCore

/// The latest value of each upstream, for `combineLatest`.
@usableFromInline
protocol CombineLatestValues: CombiningStorage {
  /// The latest values as a tuple; only called once every slot holds a value.
  func output() -> Output
}

/// The latest values of two upstreams.
@usableFromInline
struct CombineLatestValues2<Value0, Value1>: CombineLatestValues, CombiningStorage2 {
  @usableFromInline var value0: Value0?
  @usableFromInline var value1: Value1?

  @usableFromInline typealias Output = (Value0, Value1)

  @inlinable static var arity: Int { 2 }
  @inlinable init() {}
  @inlinable mutating func put0(_ value: Value0) -> Value0? {
    combiningExchange(&value0, with: value)
  }
  @inlinable mutating func put1(_ value: Value1) -> Value1? {
    combiningExchange(&value1, with: value)
  }
  @inlinable func output() -> (Value0, Value1) { (value0!, value1!) }
}

/// The latest values of three upstreams.
@usableFromInline
struct CombineLatestValues3<Value0, Value1, Value2>: CombineLatestValues,
  CombiningStorage3
{
  @usableFromInline var value0: Value0?
  @usableFromInline var value1: Value1?
  @usableFromInline var value2: Value2?

  @usableFromInline typealias Output = (Value0, Value1, Value2)

  @inlinable static var arity: Int { 3 }
  @inlinable init() {}
  @inlinable mutating func put0(_ value: Value0) -> Value0? {
    combiningExchange(&value0, with: value)
  }
  @inlinable mutating func put1(_ value: Value1) -> Value1? {
    combiningExchange(&value1, with: value)
  }
  @inlinable mutating func put2(_ value: Value2) -> Value2? {
    combiningExchange(&value2, with: value)
  }
  @inlinable func output() -> (Value0, Value1, Value2) { (value0!, value1!, value2!) }
}

/// The latest values of four upstreams.
@usableFromInline
struct CombineLatestValues4<Value0, Value1, Value2, Value3>: CombineLatestValues,
  CombiningStorage4
{
  @usableFromInline var value0: Value0?
  @usableFromInline var value1: Value1?
  @usableFromInline var value2: Value2?
  @usableFromInline var value3: Value3?

  @usableFromInline typealias Output = (Value0, Value1, Value2, Value3)

  @inlinable static var arity: Int { 4 }
  @inlinable init() {}
  @inlinable mutating func put0(_ value: Value0) -> Value0? {
    combiningExchange(&value0, with: value)
  }
  @inlinable mutating func put1(_ value: Value1) -> Value1? {
    combiningExchange(&value1, with: value)
  }
  @inlinable mutating func put2(_ value: Value2) -> Value2? {
    combiningExchange(&value2, with: value)
  }
  @inlinable mutating func put3(_ value: Value3) -> Value3? {
    combiningExchange(&value3, with: value)
  }
  @inlinable func output() -> (Value0, Value1, Value2, Value3) {
    (value0!, value1!, value2!, value3!)
  }
}

/// The subscription of `CombineLatest`, `CombineLatest3` and `CombineLatest4`: one state
/// machine for every arity, whose states and transitions are ``CombineLatestState``'s; this
/// class takes the lock, performs what the transitions decide after it, and delivers.
///
/// Demand, as Combine documents it: every request of the subscriber goes to every upstream
/// that has not completed (nothing once the demand is unlimited), and only requested tuples go
/// down. A value that finds no demand replaces the stored one and the tuple is held: the next
/// request sends the latest values. The demand the subscriber returns for a tuple is added to its
/// demand and goes back to the upstream whose value made it, as `receive(_:)`'s return value;
/// the others are not asked for it, nor is any upstream for the demand returned for a queued
/// tuple. That is Combine's behaviour (the Apple developer forums thread 709494, FB10446601: a
/// subscriber that requests `.max(1)` and returns `.max(1)` per tuple never gets the first
/// upstream's next value), kept so a port behaves the same.
///
/// Delivery: through `gate` (``DeliveryGate``), as Combine's downstream lock: a value's tuple
/// goes down on the thread that sent it, after a delivery under way on another thread, and
/// re-entrantly when the value was sent from inside the subscriber. A tuple is queued only
/// behind another, or when its value answers a request this subscription made from inside
/// the gate (`requestingUpstreams`, as Combine's flatMap buffers there): the outermost pass
/// of the thread in the gate then delivers the queue (`nestedWork`), so a synchronous
/// upstream never makes deliveries nest.
// Sendable: `state` is guarded by `lock`, `nestedWork` and `requestingUpstreams` by `gate`;
// downstream calls happen inside the gate, and every call out after the lock.
@usableFromInline
final class CombineLatestInner<
  Storage: CombineLatestValues,
  Downstream: Subscriber
>:
  // Sendable: state guarded by `lock`, calls made outside it (the reason above the class).
  @unchecked Sendable, CombiningCore, Subscription, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible
where Downstream.Input == Storage.Output {
  @usableFromInline typealias Failure = Downstream.Failure
  @usableFromInline typealias State = CombineLatestState<Storage, Downstream>

  // `@exclusivity(unchecked)` below: each such `var` is touched only under `lock`, or (the
  // flags said to be) only by the thread holding `gate`, whose lock makes access exclusive.
  @usableFromInline let lock = Lock()
  /// Held across every call to the subscriber.
  @usableFromInline let gate = DeliveryGate()
  @usableFromInline @exclusivity(unchecked) var state: State
  /// Set by a nested pass through the gate that queued a tuple: the outermost pass delivers
  /// the queue once its own call returns. Guarded by `gate`.
  @usableFromInline @exclusivity(unchecked) var nestedWork = false
  /// Set while the thread in the gate asks upstreams for values: a value they send at once is
  /// queued rather than delivered from inside the request. Guarded by `gate`.
  @usableFromInline @exclusivity(unchecked) var requestingUpstreams = false

  @inlinable
  init(downstream: Downstream) {
    state = State(downstream: downstream)
  }

  @usableFromInline
  var description: String { "CombineLatest" }

  @usableFromInline
  var playgroundDescription: Any { description }

  /// Whether the subscription is neither completed nor cancelled.
  @inlinable
  var isActive: Bool { lock.withLock { !state.isTerminal } }

  // MARK: Upstream events

  @inlinable
  func receive(subscription: any Subscription, at index: Int) {
    switch lock.withLock({ state.subscribed(subscription, at: index) }) {
    case .cancel:
      subscription.cancel()
    case .keep:
      break
    case .request(let demand):
      subscription.request(demand)
    }
  }

  @inlinable
  func receive<Slot: CombiningSlot>(_ value: Slot.Value, slot: Slot.Type) -> Subscribers.Demand
  where Slot.Storage == Storage {
    gate.enter(as: ThreadID.current) { outermost in
      var replaced: Slot.Value?
      let action = lock.withLock {
        state.receive(value, slot: slot, replaced: &replaced) { !requestingUpstreams }
      }
      _ = consume replaced  // the value the new one replaced is released here, after the lock
      var giveBack = Subscribers.Demand.none
      switch consume action {
      case .ignore:
        break
      case .queued:
        nestedWork = true
      case .deliver(let output, let downstream, let unlimited):
        let more = downstream.receive(output)
        if !unlimited, more > .none {
          let returned = lock.withLock { state.returned(more, from: Slot.index) }
          if returned.drain { nestedWork = true }  // the held tuple, released by this demand
          if returned.returning { giveBack = more }
        }
      }
      if outermost, nestedWork { drainAvailable() }
      return giveBack
    }
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    let action = lock.withLock { state.complete(completion, at: index) }
    action.cancels.cancel()
    if action.ending { deliverPending() }
  }  // the completed upstream's subscription is released here

  // MARK: Downstream calls

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    guard let released = lock.withLock({ state.add(demand) }) else { return }
    if gate.isHeld(by: ThreadID.current) {
      // From inside the subscriber: the upstreams' answers queue, and the outermost pass
      // delivers them once the subscriber returns.
      if released { nestedWork = true }
      askUpstreams(lock.withLock { state.upstreamCalls() }, for: demand)
      return
    }
    // The held tuple goes down first, then the request goes to the upstreams still subscribed.
    if released { deliverPending() }
    lock.withLock { state.upstreamCalls() }.request(demand)
  }

  @inlinable
  func cancel() {
    let cancelled = lock.withLock { state.cancel() }
    cancelled.cancels.cancel()
  }  // the subscriber, the latest values, queued tuples and a completion are released here

  // MARK: Delivery

  /// Asks `calls`' upstreams for `demand` from inside the gate: what they send at once is
  /// queued for the outermost pass.
  @inlinable
  func askUpstreams(_ calls: consuming CombiningCalls, for demand: Subscribers.Demand) {
    let outer = requestingUpstreams
    requestingUpstreams = true
    calls.request(demand)
    requestingUpstreams = outer
  }

  /// Delivers what was made deliverable: at once from the outermost pass through the gate,
  /// after the subscriber's call returns from a nested one.
  @inlinable
  func deliverPending() {
    gate.drain(as: ThreadID.current, drainAvailable) { nestedWork = true }
  }

  /// Delivers queued tuples, then a pending completion; run only from the outermost pass
  /// through the gate. The demand returned for each tuple is requested from the upstreams with
  /// `requestingUpstreams` set, so a synchronous upstream's answer is queued rather than
  /// delivered from inside the request.
  @inlinable
  func drainAvailable() {
    nestedWork = false
    while let step = lock.withLock({ state.nextStep() }) {
      switch consume step {
      case .value(let output, let downstream):
        let more = downstream.receive(output)
        lock.withLock { state.delivered(more: more) }
      case .completion(let completion, let downstream, let released):
        _ = consume released
        downstream.receive(completion: completion)
        return
      }
    }
  }
}

extension CombineLatestInner: CustomReflectable {
  /// The subscriber (`nil` once the subscription ended and let go of it) and the demand not yet
  /// met, as `zip`'s.
  @usableFromInline
  var customMirror: Mirror {
    let (downstream, demand) = lock.withLock { () -> (Downstream?, Subscribers.Demand) in
      switch state.phase {
      case .active(let downstream), .ending(let downstream, _): (downstream, state.demand)
      case .terminal: (nil, state.demand)
      }
    }
    return Mirror(self, children: ["downstream": downstream as Any, "demand": demand])
  }
}
