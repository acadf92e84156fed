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
