public import StreamCore

/// Stands in for a subscription where `flatMap` keeps none (a free or not yet subscribed child
/// slot, a `.finished` that releases nothing), so that those places hold a plain
/// `any Subscription` rather than an optional one.
///
/// An `Optional<any Subscription>` is stored, taken and destroyed through the optional's
/// value witnesses, which look at the existential's metadata to tell `nil` apart: about 40
/// instructions each time, several times per child. A plain existential moves by copying its
/// words, and this stand-in, an empty struct, needs no reference count. Nothing calls it: the
/// slot's `subscribed` flag says whether its subscription is real.
@usableFromInline
struct NoChildSubscription: Subscription {
  @inlinable
  init() {}

  @usableFromInline
  var combineIdentifier: CombineIdentifier { CombineIdentifier() }

  @inlinable
  func request(_ demand: Subscribers.Demand) {}

  @inlinable
  func cancel() {}
}

/// One child slot of `Publishers.FlatMap`'s subscription.
///
/// It lives outside the generic `FlatMap` so that it is not generic: the child-side paths run
/// unspecialised when a child publisher's code is not inlinable, and a generic slot type would
/// cost a metadata lookup on every access there.
@usableFromInline
struct FlatMapChild {
  /// The child's subscription once `subscribed`, else a ``NoChildSubscription``.
  @usableFromInline var subscription: any Subscription
  /// 0 while the slot is free.
  @usableFromInline var generation: Int
  /// The child handed its subscription, which is in `subscription`.
  @usableFromInline var subscribed: Bool
  /// Asked for unlimited values, so it needs no top-up.
  @usableFromInline var unlimited: Bool
  /// While free: the next free slot, -1 for none.
  @usableFromInline var nextFree: Int

  @inlinable
  init(generation: Int) {
    self.subscription = NoChildSubscription()
    self.generation = generation
    self.subscribed = false
    self.unlimited = false
    self.nextFree = -1
  }

  /// Takes the free slot for the child of `generation`; returns the next free slot.
  @inlinable
  mutating func occupy(generation: Int) -> Int {
    self.generation = generation
    return nextFree
  }

  /// Keeps the child's first subscription, asked for unlimited values or not; `false` if it
  /// already has one.
  @inlinable
  mutating func subscribe(_ subscription: any Subscription, unlimited: Bool) -> Bool {
    guard !subscribed else { return false }
    // Initialised over the stand-in rather than assigned: the stand-in, an empty struct, holds
    // nothing to release, and an existential's assignment compares the two types and destroys
    // the old value through its value witnesses first.
    withUnsafeMutablePointer(to: &self.subscription) { $0.initialize(to: subscription) }
    self.subscribed = true
    self.unlimited = unlimited
    return true
  }

  /// ``subscribe(_:unlimited:)`` for a subscription that is an object: the existential is made
  /// here, from the reference and its witness table, by retaining it (no value-witness call).
  @inlinable
  mutating func subscribe(
    object subscription: any Subscription & AnyObject,
    unlimited: Bool
  )
    -> Bool
  {
    guard !subscribed else { return false }
    withUnsafeMutablePointer(to: &self.subscription) { $0.initialize(to: subscription) }
    self.subscribed = true
    self.unlimited = unlimited
    return true
  }

  /// Frees the slot, which becomes the head of the free list before `nextFree`; returns the
  /// child's subscription (a ``NoChildSubscription`` if it had none), moved out.
  @inlinable @inline(__always)
  mutating func vacate(nextFree: Int) -> any Subscription {
    // Moved out and the stand-in put back in its place: two moves, where `swap` through a
    // temporary makes three and the stand-in's later destruction one more call.
    let released = withUnsafeMutablePointer(to: &subscription) { slot in
      let taken = slot.move()
      slot.initialize(to: NoChildSubscription())
      return taken
    }
    generation = 0
    subscribed = false
    unlimited = false
    self.nextFree = nextFree
    return released
  }
}

extension InnerTag {
  /// The tag of a value taken straight from a `Just` child, which is never subscribed to.
  @inlinable
  static var just: InnerTag { InnerTag(slot: -1, generation: 0) }
}

/// The child slots of `flatMap`'s subscription while it is active: claimed for each upstream
/// value, reused through a free list once their child finishes.
///
/// Not generic, like ``FlatMapChild``: a child's value reads its slot here without generic
/// metadata even when that path runs unspecialised.
///
/// Slot 0 is stored inline and the others in an array: a subscription whose children come one
/// at a time (each finishing before the next, as `Just`, `Future` or an erased one-value child
/// does) uses slot 0 only, and its claim, subscription and release then write the slot in
/// place, where the array's copy-on-write check cost three uniqueness checks per child.
@usableFromInline
struct FlatMapChildren {
  /// Slot 0, meaningful once `count` is at least 1.
  @usableFromInline var first = FlatMapChild(generation: 0)
  /// Slots 1 and up.
  @usableFromInline var rest: [FlatMapChild] = []
  /// Slots ever claimed (free ones have generation 0).
  @usableFromInline var count = 0
  /// The first free slot, to reuse before adding one (the rest are linked through their
  /// `nextFree`); -1 for none.
  @usableFromInline var firstFree = -1
  /// Children claimed and not yet finished.
  @usableFromInline var live = 0
  /// The last generation handed out.
  @usableFromInline var lastGeneration = 0

  @inlinable
  init() {}

  /// Changes the slot `slot`, below `count`, in place. (A subscript's `_modify` coroutine was
  /// not inlined and allocated its frame.)
  @inlinable @inline(__always)
  mutating func withSlot<Result>(
    _ slot: Int,
    _ body: (inout FlatMapChild) -> Result
  ) -> Result {
    if slot == 0 { return body(&first) }
    return body(&rest[slot &- 1])
  }

  /// The generation of the slot `slot`'s occupant, 0 if free.
  @inlinable @inline(__always)
  func generation(of slot: Int) -> Int {
    slot == 0 ? first.generation : rest[slot &- 1].generation
  }

  /// Whether the slot `slot`'s child handed its subscription.
  @inlinable @inline(__always)
  func isSubscribed(_ slot: Int) -> Bool {
    slot == 0 ? first.subscribed : rest[slot &- 1].subscribed
  }

  /// Whether the slot `slot`'s child was asked for unlimited values.
  @inlinable @inline(__always)
  func isUnlimited(_ slot: Int) -> Bool {
    slot == 0 ? first.unlimited : rest[slot &- 1].unlimited
  }

  /// The slot `slot`'s subscription (a ``NoChildSubscription`` unless subscribed).
  @inlinable @inline(__always)
  func subscription(of slot: Int) -> any Subscription {
    slot == 0 ? first.subscription : rest[slot &- 1].subscription
  }

  /// Claims a slot for a new child and returns its tag.
  @inlinable
  mutating func claim() -> InnerTag {
    lastGeneration &+= 1
    let generation = lastGeneration
    let slot: Int
    if firstFree >= 0 {
      slot = firstFree
      firstFree = withSlot(slot) { $0.occupy(generation: generation) }
    } else {
      slot = count
      if slot == 0 {
        first = FlatMapChild(generation: lastGeneration)
      } else {
        rest.append(FlatMapChild(generation: lastGeneration))
      }
      count += 1
    }
    live += 1
    return InnerTag(slot: slot, generation: lastGeneration)
  }

  /// Whether `tag` names the slot's current occupant (never true for a `Just` tag).
  @inlinable
  func isCurrent(_ tag: InnerTag) -> Bool {
    // Slot 0's generation is 0 until claimed, and a tag's is never 0.
    if tag.slot == 0 { return first.generation == tag.generation }
    let index = tag.slot &- 1
    return index >= 0 && index < rest.count && rest[index].generation == tag.generation
  }

  /// Frees the slot of the current child `tag`, which finished; returns its subscription (a
  /// ``NoChildSubscription`` if it never subscribed), to release after the lock.
  @inlinable @inline(__always)
  mutating func finish(_ tag: InnerTag) -> any Subscription {
    let nextFree = firstFree
    let released = withSlot(tag.slot) { $0.vacate(nextFree: nextFree) }
    firstFree = tag.slot
    live -= 1
    return released
  }

  /// Empties the table; returns the slots (`count` of them), whose subscriptions (where
  /// `subscribed`) are cancelled or released after the lock.
  @inlinable
  mutating func takeAll() -> FlatMapChildren {
    let taken = self
    self = FlatMapChildren()
    return taken
  }
}
