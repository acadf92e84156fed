public import StreamCore

// Typed storage shared by `combineLatest` and `zip` for 2 to 4 upstreams.
//
// Each operator keeps one state machine for every arity (`LatestFamilyCombineLatestCore`,
// `LatestFamilyZipCore`), generic over a `Storage` struct that holds one slot per upstream: the
// latest value for combineLatest, a FIFO for zip. An upstream's subscriber
// (`LatestFamilySide`) is generic over a `Slot` type that knows at compile time which field it
// writes, so after specialisation storing a value is a plain field write: no `Any`, no key
// path, no closure, no per-element allocation. Parameter packs were the alternative; they
// cannot address "the pack element of this side" by a runtime index, and the optimiser does
// not reliably specialise them on the hot path.

/// One typed slot per upstream.
@usableFromInline
protocol LatestFamilyStorage {
  /// The tuple delivered downstream.
  associatedtype Output

  /// The number of upstreams.
  static var arity: Int { get }

  /// Empty slots.
  init()
}

/// Storage with at least two slots.
@usableFromInline
protocol LatestFamilyStorage2: LatestFamilyStorage {
  associatedtype Value0
  associatedtype Value1
  mutating func put0(_ value: Value0) -> Value0?
  mutating func put1(_ value: Value1) -> Value1?
}

/// Storage with at least three slots.
@usableFromInline
protocol LatestFamilyStorage3: LatestFamilyStorage2 {
  associatedtype Value2
  mutating func put2(_ value: Value2) -> Value2?
}

/// Storage with four slots.
@usableFromInline
protocol LatestFamilyStorage4: LatestFamilyStorage3 {
  associatedtype Value3
  mutating func put3(_ value: Value3) -> Value3?
}

/// Names one slot of a storage type: its index and how to store a value in it.
@usableFromInline
protocol LatestFamilySlot {
  associatedtype Storage: LatestFamilyStorage
  associatedtype Value
  static var index: Int { get }
  /// Stores `value`; returns the value it replaces (combineLatest), which the caller releases
  /// after its lock, or `nil` (zip, which queues).
  static func put(_ value: Value, into storage: inout Storage) -> Value?
}

/// The first upstream's slot.
@usableFromInline
enum LatestFamilySlot0<Storage: LatestFamilyStorage2>: LatestFamilySlot {
  @inlinable static var index: Int { 0 }

  @inlinable
  static func put(_ value: Storage.Value0, into storage: inout Storage) -> Storage.Value0? {
    storage.put0(value)
  }
}

/// The second upstream's slot.
@usableFromInline
enum LatestFamilySlot1<Storage: LatestFamilyStorage2>: LatestFamilySlot {
  @inlinable static var index: Int { 1 }

  @inlinable
  static func put(_ value: Storage.Value1, into storage: inout Storage) -> Storage.Value1? {
    storage.put1(value)
  }
}

/// The third upstream's slot.
@usableFromInline
enum LatestFamilySlot2<Storage: LatestFamilyStorage3>: LatestFamilySlot {
  @inlinable static var index: Int { 2 }

  @inlinable
  static func put(_ value: Storage.Value2, into storage: inout Storage) -> Storage.Value2? {
    storage.put2(value)
  }
}

/// The fourth upstream's slot.
@usableFromInline
enum LatestFamilySlot3<Storage: LatestFamilyStorage4>: LatestFamilySlot {
  @inlinable static var index: Int { 3 }

  @inlinable
  static func put(_ value: Storage.Value3, into storage: inout Storage) -> Storage.Value3? {
    storage.put3(value)
  }
}

/// The state machine an upstream's ``LatestFamilySide`` reports to.
@usableFromInline
protocol LatestFamilyCore: AnyObject {
  associatedtype Storage: LatestFamilyStorage
  associatedtype Failure: Error

  func receive(subscription: any Subscription, at index: Int)
  func receive<Slot: LatestFamilySlot>(_ value: Slot.Value, slot: Slot.Type) -> Subscribers.Demand
  where Slot.Storage == Storage
  func receive(completion: Subscribers.Completion<Failure>, at index: Int)
}

/// The subscriber attached to one upstream; it forwards everything to the shared core, tagged
/// with its slot.
@usableFromInline
final class LatestFamilySide<Slot: LatestFamilySlot, Core: LatestFamilyCore>: Subscriber
where Core.Storage == Slot.Storage {
  @usableFromInline typealias Input = Slot.Value
  @usableFromInline typealias Failure = Core.Failure

  @usableFromInline
  let core: Core

  @inlinable
  init(core: Core) {
    self.core = core
  }

  @inlinable
  func receive(subscription: any Subscription) {
    core.receive(subscription: subscription, at: Slot.index)
  }

  @inlinable
  func receive(_ input: Slot.Value) -> Subscribers.Demand {
    core.receive(input, slot: Slot.self)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Core.Failure>) {
    core.receive(completion: completion, at: Slot.index)
  }
}

/// Up to four upstream subscriptions to call once the lock is released, without allocating.
@usableFromInline
struct LatestFamilyCalls {
  @usableFromInline var first: (any Subscription)?
  @usableFromInline var second: (any Subscription)?
  @usableFromInline var third: (any Subscription)?
  @usableFromInline var fourth: (any Subscription)?

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { first == nil }

  @inlinable
  mutating func append(_ subscription: any Subscription) {
    if first == nil {
      first = subscription
    } else if second == nil {
      second = subscription
    } else if third == nil {
      third = subscription
    } else {
      fourth = subscription
    }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    first?.request(demand)
    second?.request(demand)
    third?.request(demand)
    fourth?.request(demand)
  }

  @inlinable
  func cancel() {
    first?.cancel()
    second?.cancel()
    third?.cancel()
    fourth?.cancel()
  }
}

/// A first-in first-out ring buffer that reuses its storage, so a steady flow allocates nothing.
@usableFromInline
struct LatestFamilyFIFO<Element> {
  @usableFromInline var slots: ContiguousArray<Element?> = []
  @usableFromInline var head = 0
  @usableFromInline var count = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { count == 0 }

  @inlinable
  mutating func append(_ element: Element) {
    if count == slots.count { grow() }
    var index = head + count
    if index >= slots.count { index -= slots.count }
    slots[index] = element
    count += 1
  }

  @inlinable
  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = slots[head].take()
    head += 1
    if head == slots.count { head = 0 }
    count -= 1
    return element
  }

  @usableFromInline
  mutating func grow() {
    var grown = ContiguousArray<Element?>()
    let capacity = Swift.max(4, slots.count * 2)
    grown.reserveCapacity(capacity)
    for offset in 0..<count {
      var index = head + offset
      if index >= slots.count { index -= slots.count }
      grown.append(slots[index].take())
    }
    grown.append(contentsOf: repeatElement(nil, count: capacity - count))
    slots = grown
    head = 0
  }
}

/// Replaces `value` with `replacement` and returns the old value, so that it can be dropped
/// after the lock is released.
@inlinable
func latestFamilyExchange<Value>(_ value: inout Value, with replacement: Value) -> Value {
  let old = value
  value = replacement
  return old
}
