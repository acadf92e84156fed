public import StreamCore

/// One child slot of `Publishers.FlatMap`'s subscription.
///
/// It lives outside the generic `FlatMap` so that it is not generic: the child-side paths run
/// unspecialised when a child publisher's code is not inlinable, and a generic slot type would
/// cost a metadata lookup on every access there.
@usableFromInline
struct FlatMapChild {
  @usableFromInline var subscription: (any Subscription)?
  /// 0 while the slot is free.
  @usableFromInline var generation: Int
  /// Asked for unlimited values, so it needs no top-up.
  @usableFromInline var unlimited: Bool

  @inlinable
  init(generation: Int) {
    self.subscription = nil
    self.generation = generation
    self.unlimited = false
  }
}

extension InnerTag {
  /// The tag of a value taken straight from a `Just` child, which is never subscribed to.
  @inlinable
  static var just: InnerTag { InnerTag(slot: -1, generation: 0) }
}

/// The child slots of `flatMap`'s subscription while it is active: claimed for each upstream
/// value, reused through `free` once their child finishes.
///
/// Not generic, like ``FlatMapChild``: a child's value reads its slot here without generic
/// metadata even when that path runs unspecialised.
@usableFromInline
struct FlatMapChildren {
  /// Every slot ever claimed; free ones have generation 0.
  @usableFromInline var slots: [FlatMapChild] = []
  /// Free slots, to reuse before growing `slots`.
  @usableFromInline var free: [Int] = []
  /// Children claimed and not yet finished.
  @usableFromInline var live = 0
  /// The last generation handed out.
  @usableFromInline var lastGeneration = 0

  @inlinable
  init() {}

  /// Claims a slot for a new child and returns its tag.
  @inlinable
  mutating func claim() -> InnerTag {
    lastGeneration &+= 1
    let slot: Int
    if let reused = free.popLast() {
      slot = reused
      slots[slot].generation = lastGeneration
      slots[slot].unlimited = false
    } else {
      slot = slots.count
      slots.append(FlatMapChild(generation: lastGeneration))
    }
    live += 1
    return InnerTag(slot: slot, generation: lastGeneration)
  }

  /// Whether `tag` names the slot's current occupant (never true for a `Just` tag).
  @inlinable
  func isCurrent(_ tag: InnerTag) -> Bool {
    tag.slot >= 0 && tag.slot < slots.count && slots[tag.slot].generation == tag.generation
  }

  /// Frees the slot of the current child `tag`, which finished; returns its subscription, to
  /// release after the lock.
  @inlinable
  mutating func finish(_ tag: InnerTag) -> (any Subscription)? {
    let released = slots[tag.slot].subscription.take()
    slots[tag.slot].generation = 0
    free.append(tag.slot)
    live -= 1
    return released
  }

  /// Empties the table; returns the slots, whose subscriptions are cancelled or released after
  /// the lock.
  @inlinable
  mutating func takeAll() -> [FlatMapChild] {
    let taken = slots
    self = FlatMapChildren()
    return taken
  }
}
