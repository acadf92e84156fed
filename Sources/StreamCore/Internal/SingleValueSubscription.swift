public import Synchronization

/// The subscription of publishers that send one value and finish: ``Just``,
/// `Optional.Publisher` (with a value) and `Result.Publisher` (with a success).
///
/// The value is sent on the first request, followed at once by `.finished`. Nothing is sent if
/// the subscription is cancelled first, and no completion if it is cancelled from inside
/// `receive(_:)`.
///
/// The phase is one atomic byte, the delivery layer's one atomic ownership word, and there is
/// no lock: the thread that moves the phase out of `pending` (the first request, or a cancel
/// that comes first) owns the subscriber from then on, so no other thread reads or writes
/// ``slot`` after that.
///
/// | Phase | `request` (compare-exchange `pending` → `sending`) | `cancel` (exchange → `terminal`) | the value delivered (compare-exchange `sending` → `terminal`) |
/// |---|---|---|---|
/// | pending | wins: takes the subscriber from the slot, sends the value | wins: takes the subscriber from the slot, releases it | — |
/// | sending | fails: nothing | → terminal; the sender keeps the subscriber | succeeds: sends `.finished` |
/// | terminal | fails: nothing | nothing | fails (cancelled while sending): no `.finished` |
///
/// Invariants, checked for every interleaving of two and three threads requesting or
/// cancelling, with a cancel from inside `receive(_:)`, by
/// `Tests/Interleavings/single_value.pml`: the slot is taken once; the value and `.finished`
/// are each sent at most once, `.finished` after the value; no `.finished` is sent once a
/// cancel's exchange has run. A lock instead would cost two lock round trips and a retain and
/// release of the subscriber per request (`flatMapErased` in `Docs/Performance.md`).
///
/// The entry point (`request` and `cancel`, one closure) is made where the subscriber's type
/// is known (the initialiser is inlinable, and so are the publishers' `receive(subscriber:)`),
/// so a call through `any Subscription` runs code specialised for that subscriber rather than
/// the generic witness, which looked up `Optional<Downstream>`'s metadata several times per
/// request (a large part of `flatMapErased`'s cost, Docs/Performance.md). Generic over `Slot`,
/// always `Downstream?`, and over `Output`, always `Downstream.Input`, so that the
/// unspecialised `deinit` destroys both with metadata the class already holds rather than
/// looking up an associated type.
// Sendable: `phase` is atomic; `slot` is touched only by the one thread that moved the phase
// out of `pending` (and by `deinit`); `output` is immutable.
@usableFromInline
final class SingleValueSubscription<Slot: SubjectDownstreamSlot, Output>: @unchecked Sendable,
  Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Slot.Downstream.Input == Output {
  @usableFromInline typealias Downstream = Slot.Downstream

  /// `request(_:)` and, with `.none`, `cancel()`.
  @usableFromInline let entry: (SingleValueSubscription, Subscribers.Demand) -> Void
  /// A ``SingleValuePhase`` value.
  @usableFromInline let phase = Atomic<UInt8>(SingleValuePhase.pending)
  /// Empty once the subscriber was moved out by a request or released by a cancel.
  @usableFromInline @exclusivity(unchecked) var slot: Slot
  /// The value to send. Kept until the subscription is released, as the publisher keeps its
  /// own copy: emptying an optional here cost more in unspecialised code than the rest of a
  /// request (Docs/Performance.md, `flatMapErased`).
  @usableFromInline let output: Output
  @usableFromInline let name: StaticString

  /// - Parameters:
  ///   - downstream: The subscriber.
  ///   - output: The one value to send.
  ///   - name: The description, as Combine names this publisher's subscription.
  @inlinable
  init(downstream: Downstream, output: Output, name: StaticString) {
    self.slot = Slot(holding: downstream)
    self.output = output
    self.name = name
    entry = { subscription, demand in
      if demand == .none {
        subscription.specialisedCancel()
      } else {
        subscription.specialisedRequest()
      }
    }
  }

  // Always inlined: the protocol witness, through which every call comes, then calls the entry
  // itself rather than this unspecialised method.
  @inlinable @inline(__always)
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    entry(self, demand)
  }

  @inlinable
  func specialisedRequest() {
    guard
      phase.compareExchange(
        expected: SingleValuePhase.pending,
        desired: SingleValuePhase.sending,
        ordering: .acquiringAndReleasing
      ).exchanged,
      let sender = slot.takeDownstream()
    else { return }
    _ = sender.receive(output)
    // Fails when cancelled inside `receive(_:)`: no completion then.
    if phase.compareExchange(
      expected: SingleValuePhase.sending,
      desired: SingleValuePhase.terminal,
      ordering: .acquiringAndReleasing
    ).exchanged {
      sender.receive(completion: .finished)
    }
  }  // the subscriber is released here

  @inlinable @inline(__always)
  func cancel() {
    entry(self, .none)
  }

  @inlinable
  func specialisedCancel() {
    // Only a cancel that comes before any request owns the subscriber; a sender releases it
    // itself when `receive(_:)` returns.
    guard
      phase.exchange(SingleValuePhase.terminal, ordering: .acquiringAndReleasing)
        == SingleValuePhase.pending
    else { return }
    _ = slot.takeDownstream()
  }

  @usableFromInline
  var description: String { "\(name)" }

  /// The value, unlabelled, before and after it is sent (as Combine's).
  @usableFromInline
  var customMirror: Mirror { Mirror(self, unlabeledChildren: [output]) }

  @usableFromInline
  var playgroundDescription: Any { description }
}

/// Hands `subscriber` a ``SingleValueSubscription`` that sends `output` on its first request
/// (``Just``, `Optional.Publisher` and `Result.Publisher` with a value).
///
/// An operator's ``InnerSubscriber`` (`flatMap`'s children) is kept in an
/// ``InnerSubscriberSlot``, whose layout doesn't depend on the generic parameters: the
/// subscription's `deinit`, which runs unspecialised, then destroys the emptied slot with a
/// fixed value witness instead of `Optional`'s generic one, which asks the payload's witnesses
/// whether it is `nil`. It gets the
/// subscription through ``InnerSubscriber/receive(objectSubscription:)``, so that `flatMap`
/// keeps it in its slot by retaining it.
@inlinable
func subscribeSingleValue<S: Subscriber>(_ subscriber: S, output: S.Input, name: StaticString) {
  // Folded away once specialised.
  if S.self == InnerSubscriber<S.Input, S.Failure>.self {
    // Read without retaining anything: `subscriber` keeps the owner alive.
    let bits = unsafeBitCast(subscriber, to: InnerSubscriber<S.Input, S.Failure>.Bits.self)
    // Handed as an object: `flatMap` keeps it without value-witness calls.
    bits.receive(
      objectSubscription: SingleValueSubscription<
        InnerSubscriberSlot<S.Input, S.Failure>, S.Input
      >(
        downstream: unsafeBitCast(subscriber, to: InnerSubscriber<S.Input, S.Failure>.self),
        output: output,
        name: name
      )
    )
  } else {
    subscriber.receive(
      subscription: SingleValueSubscription<S?, S.Input>(
        downstream: subscriber,
        output: output,
        name: name
      )
    )
  }
}

/// The slot of a ``SingleValueSubscription`` whose subscriber is an ``InnerSubscriber``: an
/// optional one, wrapped in a struct whose layout is fixed (the inner subscriber holds only
/// references and integers, whatever its generic parameters), so that its value witnesses are
/// plain code rather than `Optional`'s generic ones.
@usableFromInline
struct InnerSubscriberSlot<Input, Failure: Error>: SubjectDownstreamSlot {
  @usableFromInline var subscriber: InnerSubscriber<Input, Failure>?

  @inlinable
  init(holding downstream: InnerSubscriber<Input, Failure>?) {
    subscriber = downstream
  }

  @inlinable
  var downstream: InnerSubscriber<Input, Failure>? { subscriber }

  @inlinable
  mutating func takeDownstream() -> InnerSubscriber<Input, Failure>? {
    subscriber.take()
  }
}

/// Where a ``SingleValueSubscription`` is: the values of its atomic phase.
@usableFromInline
enum SingleValuePhase {
  /// Neither requested nor cancelled; the slot holds the subscriber.
  @inlinable static var pending: UInt8 { 0 }
  /// The first request is sending the value.
  @inlinable static var sending: UInt8 { 1 }
  /// Sent and finished, or cancelled.
  @inlinable static var terminal: UInt8 { 2 }
}
