/// Which inner publisher of an operator an event came from: a slot and the generation of the
/// slot's occupant, so that an event of an earlier occupant is told apart. Not generic, so that
/// code running unspecialised reads it without a metadata lookup.
@usableFromInline
package struct InnerTag: Equatable, Sendable {
  /// The operator's slot for the inner publisher; -1 where the operator keeps none.
  @usableFromInline package let slot: Int
  /// The occupant's generation, from 1 up; 0 where the operator keeps none.
  @usableFromInline package let generation: Int

  @inlinable
  package init(slot: Int, generation: Int) {
    self.slot = slot
    self.generation = generation
  }
}

/// The entry points through which an ``InnerSubscriber`` reaches the operator that made it
/// (its owner): closures made where the operator's types are known, so that an inner
/// publisher's events land in specialised code even when the inner publisher calls its
/// subscriber from unspecialised code. Each takes the owner, which the operator downcasts.
///
/// Generic over the inner publisher's output and failure only, and holding nothing but
/// closures that capture nothing and a name, so that unspecialised code reads its fields at
/// fixed offsets: the device of the subjects' conduits (`SubjectConduitBase`). An operator makes
/// one per subscription and keeps it for its whole life (its subscribers don't retain it); it
/// holds no reference to the operator.
// Sendable: the entries are immutable closures that capture nothing.
@usableFromInline
package final class InnerEntries<Input, Failure: Error>: @unchecked Sendable {
  /// An inner publisher handed its subscription.
  @usableFromInline
  package let subscribedEntry: (AnyObject, InnerTag, any Subscription) -> Void

  /// An inner publisher handed its subscription through
  /// ``InnerSubscriber/receive(objectSubscription:)``.
  @usableFromInline
  package let subscribedObjectEntry: (AnyObject, InnerTag, any Subscription & AnyObject) -> Void

  /// An inner publisher sent a value; returns the demand to give back to it.
  @usableFromInline
  package let valueEntry: (AnyObject, InnerTag, Input) -> Subscribers.Demand

  /// An inner publisher completed.
  @usableFromInline
  package let completionEntry: (AnyObject, InnerTag, Subscribers.Completion<Failure>) -> Void

  /// The inner subscriber's description (as Combine names the operator's).
  @usableFromInline
  package let name: StaticString

  @inlinable
  package init(
    name: StaticString,
    subscribedEntry: @escaping (AnyObject, InnerTag, any Subscription) -> Void,
    subscribedObjectEntry: @escaping (AnyObject, InnerTag, any Subscription & AnyObject) -> Void,
    valueEntry: @escaping (AnyObject, InnerTag, Input) -> Subscribers.Demand,
    completionEntry: @escaping (AnyObject, InnerTag, Subscribers.Completion<Failure>) -> Void
  ) {
    self.name = name
    self.subscribedEntry = subscribedEntry
    self.subscribedObjectEntry = subscribedObjectEntry
    self.valueEntry = valueEntry
    self.completionEntry = completionEntry
  }
}

/// The subscriber an operator attaches to an inner publisher (`flatMap`'s children): one
/// concrete type for every operator and every downstream, so that a type-erased inner
/// publisher can subscribe it through code specialised where the erased publisher's type was
/// known (``AnyPublisher``'s box keeps such an entry). It keeps its owner (the operator's
/// subscription) alive, and tags its events with the inner publisher's ``InnerTag``.
@usableFromInline
package struct InnerSubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible, CustomReflectable
{
  @usableFromInline package let owner: AnyObject
  /// Kept alive by the owner, which holds it for its whole life: not retained here, so that a
  /// copy of this subscriber costs one retain, as a subscriber holding only its owner would.
  /// Unmanaged and called through a guaranteed reference, so that reading an entry doesn't
  /// retain and release the closure's context around each call.
  @usableFromInline package let entries: Unmanaged<InnerEntries<Input, Failure>>
  @usableFromInline package let tag: InnerTag
  @usableFromInline package let combineIdentifier: CombineIdentifier

  @inlinable
  package init(owner: AnyObject, entries: InnerEntries<Input, Failure>, tag: InnerTag) {
    self.owner = owner
    self.entries = Unmanaged.passUnretained(entries)
    self.tag = tag
    // Made last, once `entries` is no longer used: made first (as a property's initial
    // value), the caller retained and released `entries` around this call.
    combineIdentifier = CombineIdentifier()
  }

  @usableFromInline
  package var description: String { "\(entries.takeUnretainedValue().name)" }

  @usableFromInline
  package var playgroundDescription: Any { description }

  /// The operator's subscription, by its identifier, as Combine's inner subscribers show it.
  @usableFromInline
  package var customMirror: Mirror {
    let parent = (owner as? any CustomCombineIdentifierConvertible)?.combineIdentifier
    return Mirror(self, children: parent.map { [("parentSubscription", $0)] } ?? [])
  }

  @inlinable
  package func receive(subscription: any Subscription) {
    entries._withUnsafeGuaranteedRef { $0.subscribedEntry(owner, tag, subscription) }
  }

  /// Hands over a subscription that is an object: as `receive(subscription:)`, but the operator
  /// gets a class-bound existential, which it copies into its own storage (`flatMap`'s child
  /// slot) by retaining it, where copying an `any Subscription` goes through its type's value
  /// witnesses. StreamCore's single-value publishers call it
  /// (through ``Bits``).
  @inlinable
  package func receive(objectSubscription subscription: any Subscription & AnyObject) {
    entries._withUnsafeGuaranteedRef { $0.subscribedObjectEntry(owner, tag, subscription) }
  }

  @inlinable
  package func receive(_ input: Input) -> Subscribers.Demand {
    entries._withUnsafeGuaranteedRef { $0.valueEntry(owner, tag, input) }
  }

  @inlinable
  package func receive(completion: Subscribers.Completion<Failure>) {
    entries._withUnsafeGuaranteedRef { $0.completionEntry(owner, tag, completion) }
  }
}

extension InnerSubscriber {
  /// An ``InnerSubscriber``'s fields with its owner as a plain pointer: an inner subscriber
  /// `unsafeBitCast` to this type is read without retaining anything, to call
  /// ``receive(objectSubscription:)`` on while the subscriber itself (and so its owner) stays
  /// alive. (Cast to ``InnerSubscriber`` instead, a publisher's generic subscriber is copied, its
  /// owner retained and released around the call.)
  ///
  /// Its stored properties mirror ``InnerSubscriber``'s, in the same order (a test checks it).
  @usableFromInline
  package struct Bits {
    @usableFromInline package let owner: UnsafeRawPointer
    @usableFromInline package let entries: Unmanaged<InnerEntries<Input, Failure>>
    @usableFromInline package let tag: InnerTag
    @usableFromInline package let combineIdentifier: CombineIdentifier

    /// ``InnerSubscriber/receive(objectSubscription:)``, the owner borrowed from whoever keeps
    /// the subscriber alive.
    @inlinable
    package func receive(objectSubscription subscription: any Subscription & AnyObject) {
      Unmanaged<AnyObject>.fromOpaque(owner)._withUnsafeGuaranteedRef { owner in
        entries._withUnsafeGuaranteedRef { $0.subscribedObjectEntry(owner, tag, subscription) }
      }
    }
  }
}
