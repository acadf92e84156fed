public import StreamCore

// Typed storage shared by `combineLatest` and `zip` for 2 to 4 upstreams.
//
// Each operator keeps one state machine for every arity (`CombineLatestInner`,
// `ZipInner`), generic over a `Storage` struct that holds one slot per upstream: the
// latest value for combineLatest, a FIFO for zip. An upstream's subscriber
// (`CombiningSide`) is generic over a `Slot` type that knows at compile time which field it
// writes, so after specialisation storing a value is a plain field write: no `Any`, no key
// path, no closure, no per-element allocation. Parameter packs were the alternative; they
// cannot address "the pack element of this side" by a runtime index, and the optimiser does
// not reliably specialise them on the hot path.

/// One typed slot per upstream.
@usableFromInline
protocol CombiningStorage {
  /// The tuple delivered downstream.
  associatedtype Output

  /// The number of upstreams.
  static var arity: Int { get }

  /// Empty slots.
  init()
}

/// Storage with at least two slots.
@usableFromInline
protocol CombiningStorage2: CombiningStorage {
  associatedtype Value0
  associatedtype Value1
  mutating func put0(_ value: Value0) -> Value0?
  mutating func put1(_ value: Value1) -> Value1?
}

/// Storage with at least three slots.
@usableFromInline
protocol CombiningStorage3: CombiningStorage2 {
  associatedtype Value2
  mutating func put2(_ value: Value2) -> Value2?
}

/// Storage with four slots.
@usableFromInline
protocol CombiningStorage4: CombiningStorage3 {
  associatedtype Value3
  mutating func put3(_ value: Value3) -> Value3?
}

/// Names one slot of a storage type: its index and how to store a value in it.
@usableFromInline
protocol CombiningSlot {
  associatedtype Storage: CombiningStorage
  associatedtype Value
  static var index: Int { get }
  /// Stores `value`; returns the value it replaces (combineLatest), which the caller releases
  /// after its lock, or `nil` (zip, which queues).
  static func put(_ value: Value, into storage: inout Storage) -> Value?
}

/// The first upstream's slot.
@usableFromInline
enum CombiningSlot0<Storage: CombiningStorage2>: CombiningSlot {
  @inlinable static var index: Int { 0 }

  @inlinable
  static func put(_ value: Storage.Value0, into storage: inout Storage) -> Storage.Value0? {
    storage.put0(value)
  }
}

/// The second upstream's slot.
@usableFromInline
enum CombiningSlot1<Storage: CombiningStorage2>: CombiningSlot {
  @inlinable static var index: Int { 1 }

  @inlinable
  static func put(_ value: Storage.Value1, into storage: inout Storage) -> Storage.Value1? {
    storage.put1(value)
  }
}

/// The third upstream's slot.
@usableFromInline
enum CombiningSlot2<Storage: CombiningStorage3>: CombiningSlot {
  @inlinable static var index: Int { 2 }

  @inlinable
  static func put(_ value: Storage.Value2, into storage: inout Storage) -> Storage.Value2? {
    storage.put2(value)
  }
}

/// The fourth upstream's slot.
@usableFromInline
enum CombiningSlot3<Storage: CombiningStorage4>: CombiningSlot {
  @inlinable static var index: Int { 3 }

  @inlinable
  static func put(_ value: Storage.Value3, into storage: inout Storage) -> Storage.Value3? {
    storage.put3(value)
  }
}

/// The state machine an upstream's ``CombiningSide`` reports to.
@usableFromInline
protocol CombiningCore: AnyObject {
  associatedtype Storage: CombiningStorage
  associatedtype Failure: Error

  func receive(subscription: any Subscription, at index: Int)
  func receive<Slot: CombiningSlot>(_ value: Slot.Value, slot: Slot.Type) -> Subscribers.Demand
  where Slot.Storage == Storage
  func receive(completion: Subscribers.Completion<Failure>, at index: Int)
}

/// The subscriber attached to one upstream; it forwards everything to the shared core, tagged
/// with its slot.
@usableFromInline
final class CombiningSide<Slot: CombiningSlot, Core: CombiningCore>: Subscriber
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
struct CombiningCalls {
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

/// Replaces `value` with `replacement` and returns the old value, so that it can be dropped
/// after the lock is released.
@inlinable
func combiningExchange<Value>(_ value: inout Value, with replacement: Value) -> Value {
  let old = value
  value = replacement
  return old
}

/// What an upstream's completion leads to in `zip` or `combineLatest`, performed after the lock.
@usableFromInline
struct CombiningCompletionAction {
  /// The completed upstream's subscription, released without a call.
  @usableFromInline var released: (any Subscription)?
  /// The other upstreams, to cancel.
  @usableFromInline var cancels = CombiningCalls()
  /// The subscription started ending: the caller runs the drain.
  @usableFromInline var ending = false

  @inlinable
  init() {}
}

extension CombiningSide: CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
{
  /// The operator's name, as its subscription's (`Zip`, `CombineLatest`): Combine describes
  /// these upstream subscribers by internal type names (INTENDED.md, I14).
  @usableFromInline
  var description: String { String(describing: core) }

  /// No children.
  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }

  /// The description, as Combine's playground display.
  @usableFromInline
  var playgroundDescription: Any { description }
}
