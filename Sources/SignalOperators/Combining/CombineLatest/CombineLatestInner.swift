public import StreamCore
public import Synchronization

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

/// The subscription of `CombineLatest`, `CombineLatest3` and `CombineLatest4`: one state machine
/// for every arity.
///
/// ```
/// active --upstream value, all have one, demand > 0--> deliver (at once, or queued)
/// active --failure / last finish / finish without a value--> ending (queue, then completion)
/// active / ending --completion delivered / cancel()--> terminal (downstream == nil)
/// ```
///
/// Demand: each upstream has at most one value requested at a time (`inFlight`), `.max(1)`, and
/// is asked again only while downstream demand remains, so a value that arrives without demand
/// replaces the stored one and is not delivered later. A value that finds another thread
/// delivering takes its demand at once and is queued with the tuple it completes; its upstream
/// is asked again after that tuple is delivered, so the queue holds at most one entry per
/// upstream.
///
/// Delivery: the thread that moves `drainers` from 0 to 1 delivers; others queue and leave. The
/// uncontended path takes the lock once per value: the value is stored, the tuple built and
/// delivery claimed in one critical section, and the claim is given back with one atomic
/// subtraction.
// Sendable: mutable state is guarded by `lock`; `drainers` is atomic; downstream and upstream
// calls happen outside the lock, downstream calls only by the thread holding the drain claim.
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

  @usableFromInline
  enum ValueAction {
    case ignore
    case requestMore
    case deliver(Storage.Output, Downstream, replenish: Bool, unlimited: Bool)
    case signal
  }

  @usableFromInline
  enum DrainStep {
    case value(Storage.Output, index: Int, Downstream)
    case completion(Subscribers.Completion<Failure>, Downstream, released: Storage)
    case stop
  }

  @usableFromInline let lock = Lock()

  /// Number of pending drain requests; the thread that raises it from 0 delivers.
  ///
  /// Kept rather than a `SerialDrain`: the uncontended path claims delivery inside the one
  /// critical section it already takes and gives the claim back with one atomic subtraction,
  /// where a `SerialDrain` would take the lock a second time per value to let go.
  @usableFromInline let drainers = Atomic<Int>(0)

  /// `nil` once terminal.
  @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
  @exclusivity(unchecked) @usableFromInline var storage = Storage()
  @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
  /// Bit `i`: upstream `i` has sent a value.
  @exclusivity(unchecked) @usableFromInline var hasValue: UInt8 = 0
  /// Bit `i`: upstream `i` has a value requested, or a value queued for delivery.
  @exclusivity(unchecked) @usableFromInline var inFlight: UInt8 = 0
  /// Bit `i`: upstream `i` has completed.
  @exclusivity(unchecked) @usableFromInline var finished: UInt8 = 0
  @exclusivity(unchecked) @usableFromInline var queue = RingBuffer<(Storage.Output, Int)>()
  @exclusivity(unchecked) @usableFromInline var subscriptions: ContiguousArray<(any Subscription)?>
  @exclusivity(unchecked) @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?

  @inlinable
  init(downstream: Downstream) {
    self.downstream = downstream
    subscriptions = ContiguousArray(repeating: nil, count: Storage.arity)
  }

  @inlinable
  static var allSides: UInt8 { UInt8(truncatingIfNeeded: (1 << Storage.arity) - 1) }

  @usableFromInline
  var description: String { "CombineLatest" }

  @usableFromInline
  var playgroundDescription: Any { description }

  /// Whether the subscription is neither completed nor cancelled.
  @inlinable
  var isActive: Bool { lock.withLock { downstream != nil } }

  // MARK: Upstream events

  @inlinable
  func receive(subscription: any Subscription, at index: Int) {
    let bit: UInt8 = 1 << index
    let (accepted, request) = lock.withLock { () -> (Bool, Bool) in
      guard downstream != nil, pendingCompletion == nil, subscriptions[index] == nil,
        finished & bit == 0
      else {
        return (false, false)
      }
      subscriptions[index] = subscription
      guard demand > .none, inFlight & bit == 0 else { return (true, false) }
      inFlight |= bit
      return (true, true)
    }
    if !accepted {
      subscription.cancel()
    } else if request {
      subscription.request(.max(1))
    }
  }

  @inlinable
  func receive<Slot: CombiningSlot>(_ value: Slot.Value, slot: Slot.Type) -> Subscribers.Demand
  where Slot.Storage == Storage {
    let bit: UInt8 = 1 << Slot.index
    var replaced: Slot.Value?  // the previous latest value, released after the lock
    let action = lock.withLock { () -> ValueAction in
      guard downstream != nil, pendingCompletion == nil, finished & bit == 0 else { return .ignore }
      replaced = Slot.put(value, into: &storage)
      hasValue |= bit
      guard demand > .none else {
        inFlight &= ~bit  // the stored value stands in for it; nothing is delivered later
        return .ignore
      }
      guard hasValue == Self.allSides else { return .requestMore }  // still in flight
      demand -= 1
      let output = storage.output()
      guard queue.isEmpty,
        drainers.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent)
          .exchanged
      else {
        queue.append((output, Slot.index))  // stays in flight until delivered
        return .signal
      }
      let replenish = demand > .none
      if !replenish { inFlight &= ~bit }
      return .deliver(output, downstream!, replenish: replenish, unlimited: demand == .unlimited)
    }
    _ = replaced
    switch action {
    case .ignore:
      return .none
    case .requestMore:
      return .max(1)
    case .signal:
      signal()
      return .none
    case .deliver(let output, let downstream, let replenish, let unlimited):
      let more = downstream.receive(output)
      var replenished = replenish
      if !unlimited, more > .none {
        var calls = CombiningCalls()
        replenished = lock.withLock { () -> Bool in
          guard self.downstream != nil else { return false }
          demand += more
          return collectRequests(into: &calls, returning: Slot.index) || replenish
        }
        calls.request(.max(1))
      }
      release()
      return replenished ? .max(1) : .none
    }
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    let bit: UInt8 = 1 << index
    var calls = CombiningCalls()
    let (ending, released) = lock.withLock { () -> (Bool, (any Subscription)?) in
      guard downstream != nil, pendingCompletion == nil, finished & bit == 0 else {
        return (false, nil)
      }
      finished |= bit
      inFlight &= ~bit
      let released = subscriptions[index].take()
      switch completion {
      case .failure:
        pendingCompletion = completion
      case .finished:
        guard hasValue & bit == 0 || finished == Self.allSides else { return (false, released) }
        pendingCompletion = .finished
      }
      for other in subscriptions.indices {
        if let subscription = subscriptions[other].take() { calls.append(subscription) }
      }
      return (true, released)
    }
    _ = released
    calls.cancel()
    if ending { signal() }
  }

  // MARK: Downstream calls

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    var calls = CombiningCalls()
    lock.withLock {
      guard downstream != nil else { return }
      self.demand += demand
      _ = collectRequests(into: &calls, returning: nil)
    }
    calls.request(.max(1))
  }

  @inlinable
  func cancel() {
    var calls = CombiningCalls()
    let released = lock.withLock {
      () -> (
        Downstream?, Storage, RingBuffer<(Storage.Output, Int)>,
        Subscribers.Completion<Failure>?
      ) in
      for index in subscriptions.indices {
        if let subscription = subscriptions[index].take() { calls.append(subscription) }
      }
      return (
        downstream.take(), combiningExchange(&storage, with: Storage()),
        queue.takeAll(), pendingCompletion.take()
      )
    }
    calls.cancel()
    _ = released
  }

  // MARK: Delivery

  /// Marks upstreams that are idle, unfinished and subscribed as in flight, while there is
  /// demand, and adds them to `calls`, except `index`, for which it returns whether it was
  /// marked. Call it under `lock`.
  @inlinable
  func collectRequests(into calls: inout CombiningCalls, returning index: Int?) -> Bool {
    guard demand > .none else { return false }
    var marked = false
    for side in 0..<Storage.arity {
      let bit: UInt8 = 1 << side
      guard inFlight & bit == 0, finished & bit == 0, let subscription = subscriptions[side] else {
        continue
      }
      inFlight |= bit
      if side == index {
        marked = true
      } else {
        calls.append(subscription)
      }
    }
    return marked
  }

  /// Asks for a drain; the thread that finds no drain under way runs it.
  @inlinable
  func signal() {
    guard drainers.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue == 0 else { return }
    var missed = 1
    repeat {
      drainAvailable()
      missed = drainers.wrappingSubtract(missed, ordering: .sequentiallyConsistent).newValue
    } while missed != 0
  }

  /// Gives back the drain claim taken in `receive(_:slot:)`, draining what others queued.
  @inlinable
  func release() {
    var missed = drainers.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
    while missed != 0 {
      drainAvailable()
      missed = drainers.wrappingSubtract(missed, ordering: .sequentiallyConsistent).newValue
    }
  }

  /// Delivers queued tuples, then a pending completion. Only the drain claim holder runs it.
  @inlinable
  func drainAvailable() {
    while true {
      let step = lock.withLock { () -> DrainStep in
        guard let downstream else { return .stop }
        if let (output, index) = queue.popFirst() {
          return .value(output, index: index, downstream)
        }
        guard let completion = pendingCompletion else { return .stop }
        pendingCompletion = nil
        self.downstream = nil
        return .completion(
          completion,
          downstream,
          released: combiningExchange(&storage, with: Storage())
        )
      }
      switch step {
      case .value(let output, let index, let downstream):
        let more = downstream.receive(output)
        var calls = CombiningCalls()
        lock.withLock {
          guard self.downstream != nil else { return }
          demand += more
          inFlight &= ~(1 << index)
          _ = collectRequests(into: &calls, returning: nil)
        }
        calls.request(.max(1))
      case .completion(let completion, let downstream, let released):
        _ = released
        downstream.receive(completion: completion)
        return
      case .stop:
        return
      }
    }
  }
}
