public import StreamCore

/// The child-side entry points of `Publishers.FlatMap`'s subscription: closures made where the
/// subscription's types are known, so a child's events land in specialised code even when the
/// child calls its subscriber from unspecialised code.
///
/// A child publisher reached through an existential or a class (an `AnyPublisher`, a future
/// stored as a protocol) runs generic code that calls ``Publishers/FlatMap/Inner/Side`` through
/// its conformance's witness table, which lands in the unspecialised `Side`, and from there in an
/// unspecialised `Inner` that looks up `FlatMapState`'s metadata at every step. `Side` calls
/// these closures instead, so only the hop into them runs generically: the same device as the
/// subjects' conduits (`SubjectConduitBase`). Generic over the output and failure only, and
/// holding nothing but closures, so that unspecialised code reads its fields at fixed offsets.
///
/// Measured with `Benchmarks/run.py` on `flatMapErased`: see `Docs/Internals.md`.
// Sendable: the entries are immutable closures that capture nothing.
@usableFromInline
class FlatMapChildEntries<Output, Failure: Error>: @unchecked Sendable {
  /// A child handed its subscription.
  @usableFromInline
  let subscribedEntry: (FlatMapChildEntries, FlatMapChildTag, any Subscription) -> Void

  /// A child sent a value; returns the demand to give back to it.
  @usableFromInline
  let valueEntry: (FlatMapChildEntries, FlatMapChildTag, Output) -> Subscribers.Demand

  /// A child completed.
  @usableFromInline
  let completionEntry:
    (FlatMapChildEntries, FlatMapChildTag, Subscribers.Completion<Failure>) -> Void

  @inlinable
  init(
    subscribedEntry: @escaping (FlatMapChildEntries, FlatMapChildTag, any Subscription) -> Void,
    valueEntry: @escaping (FlatMapChildEntries, FlatMapChildTag, Output) -> Subscribers.Demand,
    completionEntry:
      @escaping (
        FlatMapChildEntries, FlatMapChildTag, Subscribers.Completion<Failure>
      ) -> Void
  ) {
    self.subscribedEntry = subscribedEntry
    self.valueEntry = valueEntry
    self.completionEntry = completionEntry
  }
}
