/// The subscription of publishers that send one value and finish: ``Just``,
/// `Optional.Publisher` (with a value) and `Result.Publisher` (with a success).
///
/// The value is sent on the first request, followed at once by `.finished`. Nothing is sent if
/// the subscription is cancelled first, and no completion if it is cancelled from inside
/// `receive(_:)`.
///
/// ```
/// pending --request(_:)--> sending --value delivered--> terminal   (then sends .finished)
/// pending/sending --cancel()--> terminal   (no completion follows)
/// ```
///
/// The hot entry points (`request`, `cancel`) are closures made where the subscriber's type is
/// known (the initialiser is inlinable, and so are the publishers' `receive(subscriber:)`), so
/// a call through `any Subscription` runs code specialised for that subscriber rather than the
/// generic witness, which looked up `Optional<Downstream>`'s metadata several times per request
/// (`flatMapErased`: about 1,300 of its instructions per value). The shape is
/// `FutureSubscription`'s: generic over `Slot`, always `Downstream?`, so that the unspecialised
/// `deinit` destroys the subscriber with metadata the class already holds.
///
/// Where it still runs unspecialised (subscribed from generic code that isn't inlined), the
/// phase is a non-generic enum and its critical sections return only non-generic values: in
/// unspecialised code each generic type a function builds costs a metadata lookup.
// Sendable: `phase` and `slot` are guarded by `lock`; `output` is immutable; the downstream is
// called outside the lock, only by the one thread that moved the phase out of `pending`.
@usableFromInline
final class SingleValueSubscription<Slot: SubjectDownstreamSlot>: @unchecked Sendable,
  Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline typealias Downstream = Slot.Downstream

  @usableFromInline let requestEntry: (SingleValueSubscription, Subscribers.Demand) -> Void
  @usableFromInline let cancelEntry: (SingleValueSubscription) -> Void
  @usableFromInline let lock = Lock()
  @usableFromInline @exclusivity(unchecked) var phase = SingleValuePhase.pending
  /// Empty once terminal.
  @usableFromInline @exclusivity(unchecked) var slot: Slot
  /// The value to send. Kept until the subscription is released, as the publisher keeps its
  /// own copy: emptying an optional here cost more in unspecialised code than the rest of a
  /// request (`flatMapErased` 6,764 -> 9,711 instructions per value).
  @usableFromInline let output: Downstream.Input
  @usableFromInline let name: StaticString

  /// - Parameters:
  ///   - downstream: The subscriber.
  ///   - output: The one value to send.
  ///   - name: The description, as Combine names this publisher's subscription.
  @inlinable
  init(downstream: Downstream, output: Downstream.Input, name: StaticString) {
    self.slot = Slot(holding: downstream)
    self.output = output
    self.name = name
    requestEntry = { subscription, demand in subscription.specialisedRequest(demand) }
    cancelEntry = { subscription in subscription.specialisedCancel() }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    requestEntry(self, demand)
  }

  @inlinable
  func specialisedRequest(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    var sender: Downstream?
    let sends = lock.withLock { () -> Bool in
      guard phase == .pending else { return false }
      phase = .sending
      sender = slot.downstream
      return true
    }
    guard sends, let sender else { return }
    _ = sender.receive(output)
    var released: Slot?
    let finishes = lock.withLock { () -> Bool in
      guard phase == .sending else { return false }  // cancelled inside `receive(_:)`
      phase = .terminal
      released = slot
      slot = Slot(holding: nil)
      return true
    }
    if finishes {
      sender.receive(completion: .finished)
    }
    _ = released
  }

  @inlinable
  func cancel() {
    cancelEntry(self)
  }

  @inlinable
  func specialisedCancel() {
    var released: Slot?
    lock.withLock {
      phase = .terminal
      released = slot
      slot = Slot(holding: nil)
    }
    _ = released
  }

  @usableFromInline
  var description: String { "\(name)" }

  /// The value, unlabelled, before and after it is sent (as Combine's).
  @usableFromInline
  var customMirror: Mirror { Mirror(self, unlabeledChildren: [output]) }

  @usableFromInline
  var playgroundDescription: Any { description }
}

/// Where a ``SingleValueSubscription`` is; not generic, so that unspecialised code reads it
/// without a metadata lookup.
@usableFromInline
enum SingleValuePhase {
  case pending
  case sending
  case terminal
}
