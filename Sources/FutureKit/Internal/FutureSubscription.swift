public import StreamCore

/// The subscription a ``Future`` hands each subscriber.
///
/// The thread that subscribes owns the subscription until `receive(subscription:)` returns: a
/// result or a request arriving meanwhile is recorded, and delivered right after. From then on,
/// whichever call finds both a result and (for a success) demand takes the downstream out of
/// the state under the lock and delivers; nobody else can.
///
/// ```
/// subscribing --receive(subscription:) returned--> waiting
/// waiting --failure known--> terminal                       (sends .failure)
/// waiting --success known and demand--> sending --value delivered--> terminal (sends .finished)
/// subscribing / waiting / sending --cancel()--> terminal    (nothing more is sent)
/// ```
///
/// The hot entry points (`request`, `cancel`) are closures made where the subscriber's type is
/// known, so a call through `any Subscription` runs code specialised for that subscriber.
///
/// The class is generic over `Slot`, which is always `Downstream?`, rather than over
/// `Downstream`: a stored property whose type is a generic parameter is destroyed with that
/// parameter's metadata, which the class metadata holds, while a `Downstream?` property makes
/// the unspecialised `deinit` look `Optional<Downstream>` up in the runtime's metadata cache
/// (measured in Docs/Performance.md).
// Sendable: all mutable state is guarded by `lock`; the downstream is called outside it, only by
// the one thread that moved it out of the state.
@usableFromInline
final class FutureSubscription<Slot: FutureDownstreamSlot>: @unchecked Sendable, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  typealias Downstream = Slot.Downstream

  @usableFromInline
  typealias Output = Downstream.Input

  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let requestEntry: (FutureSubscription, Subscribers.Demand) -> Void

  @usableFromInline
  let cancelEntry: (FutureSubscription) -> Void

  @usableFromInline
  let lock = Lock()

  @usableFromInline
  @exclusivity(unchecked) var phase = FutureSubscriptionPhase.subscribing

  /// Set by the future (before the subscription is shared) or by ``fulfill(_:)``.
  @usableFromInline
  @exclusivity(unchecked) var resolution = FutureResolution.pending

  @usableFromInline
  @exclusivity(unchecked) var hasDemand = false

  /// Kept until delivery or cancellation, to read the result and to withdraw.
  @usableFromInline
  @exclusivity(unchecked) var future: Future<Output, Failure>?

  /// Empty once delivery has started or the subscription was cancelled.
  @usableFromInline
  @exclusivity(unchecked) var slot: Slot

  @inlinable
  var downstream: Downstream? { slot.downstream }

  @inlinable
  init(downstream: Downstream, future: Future<Output, Failure>) {
    self.slot = Slot(holding: downstream)
    self.future = future
    requestEntry = { subscription, demand in subscription.specialisedRequest(demand) }
    cancelEntry = { subscription in subscription.specialisedCancel() }
  }

  /// Hands the subscription over, then delivers what became deliverable meanwhile. Runs on the
  /// subscribing thread, which owns the subscription until then.
  @inlinable
  func start(_ subscriber: Downstream) {
    // Folded away once specialised. An operator's inner subscriber (`flatMap`'s children) gets
    // the subscription as an object, which the operator keeps by retaining it (see
    // `InnerSubscriber.receive(objectSubscription:)`); read as its bits, the subscriber is not
    // copied for the call.
    typealias Inner = InnerSubscriber<Downstream.Input, Downstream.Failure>
    if Downstream.self == Inner.self {
      unsafeBitCast(subscriber, to: Inner.Bits.self).receive(objectSubscription: self)
    } else {
      subscriber.receive(subscription: self)
    }
    var delivery = lock.withLock { () -> (Downstream, Future<Output, Failure>)? in
      guard phase == .subscribing else { return nil }  // cancelled inside receive(subscription:)
      phase = .waiting
      return takeDelivery()
    }
    // Moved out of the optional rather than bound from it: binding copied both (a retain and
    // a release of each).
    if let (downstream, future) = delivery.take() {
      deliver(downstream, future.settledResult)
    }
  }

  /// Called by the future once it completes, outside its lock.
  @inlinable
  func fulfill(_ result: Result<Output, Failure>) {
    var released: Future<Output, Failure>?
    let downstream = lock.withLock { () -> Downstream? in
      guard phase != .terminal else { return nil }
      if case .failure = result {
        resolution = .failure
      } else {
        resolution = .success
      }
      guard let (downstream, future) = takeDelivery() else { return nil }
      released = future
      return downstream
    }
    _ = released  // not needed: the result is at hand
    if let downstream {
      deliver(downstream, result)
    }
  }

  /// Moves the downstream and the future out if the result can be delivered now; must run
  /// under the lock.
  @inlinable
  func takeDelivery() -> (Downstream, Future<Output, Failure>)? {
    guard phase == .waiting else { return nil }
    switch resolution {
    case .pending:
      return nil
    case .success:
      guard hasDemand else { return nil }
      phase = .sending
    case .failure:
      phase = .terminal
    }
    return takeDownstreamForDelivery()
  }

  /// Moves the downstream and the future out of the state (no retain, no release); must run
  /// under the lock, while both are held.
  @inlinable
  func takeDownstreamAndFuture() -> (Downstream, Future<Output, Failure>) {
    var taken = Slot(holding: nil)
    swap(&taken, &slot)
    guard let downstream = taken.downstream, let future = future.take() else {
      preconditionFailure("FutureSubscription: no downstream while waiting")
    }
    return (downstream, future)
  }

  /// The downstream, taken for delivery, and the future, which the subscription keeps until the
  /// delivery is over (`letGoOfFuture()`): while the value is delivered, the subscription's
  /// mirror still shows its `parent`, as Combine's does (OpenCombine's `FutureTests`).
  @inlinable
  func takeDownstreamForDelivery() -> (Downstream, Future<Output, Failure>) {
    var taken = Slot(holding: nil)
    swap(&taken, &slot)
    guard let downstream = taken.downstream, let future else {
      preconditionFailure("FutureSubscription: no downstream while waiting")
    }
    return (downstream, future)
  }

  /// Lets go of the future once a delivery is over.
  @inlinable
  func letGoOfFuture() {
    let released = lock.withLock { future.take() }
    _ = released  // released here, outside the lock
  }

  /// Sends the value then `.finished` (unless cancelled from inside `receive(_:)`), or the
  /// failure.
  @inlinable
  func deliver(_ downstream: Downstream, _ result: Result<Output, Failure>) {
    switch result {
    case .success(let value):
      _ = downstream.receive(value)
      var released: Future<Output, Failure>?
      let finishes = lock.withLock { () -> Bool in
        released = future.take()
        guard phase == .sending else { return false }
        phase = .terminal
        return true
      }
      _ = released  // released here, outside the lock
      if finishes {
        downstream.receive(completion: .finished)
      }
    case .failure(let error):
      downstream.receive(completion: .failure(error))
      letGoOfFuture()
    }
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    requestEntry(self, demand)
  }

  @inlinable
  func specialisedRequest(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    var delivery = lock.withLock { () -> (Downstream, Future<Output, Failure>)? in
      guard phase != .terminal else { return nil }
      hasDemand = true
      return takeDelivery()
    }
    // Moved out of the optional rather than bound from it: binding copied both (a retain and
    // a release of each).
    if let (downstream, future) = delivery.take() {
      deliver(downstream, future.settledResult)
    }
  }

  @inlinable
  func cancel() {
    cancelEntry(self)
  }

  @inlinable
  func specialisedCancel() {
    let released = lock.withLock {
      () -> (Downstream, Future<Output, Failure>, waiting: Bool)? in
      guard phase != .terminal else { return nil }
      let sending = phase == .sending  // the delivering thread already holds both
      phase = .terminal
      guard !sending else { return nil }
      let (downstream, future) = takeDownstreamAndFuture()
      return (downstream, future, resolution == .pending)
    }
    // Released here, outside the lock; a subscription still waiting leaves the future's list.
    if let (_, future, waiting) = released, waiting {
      future.withdraw(ObjectIdentifier(self))
    }
  }

  @usableFromInline
  var description: String { "Future" }

  /// As Combine's: the future (`parent` and `subject`), the `downstream`, and whether the
  /// downstream has asked for the value (`hasAnyDemand`); the parts are `nil` once the
  /// subscription has let go of them.
  @usableFromInline
  var customMirror: Mirror {
    let (future, downstream, hasDemand) = lock.withLock {
      (self.future, self.downstream, self.hasDemand)
    }
    return Mirror(
      self,
      children: [
        "parent": future as Any, "downstream": downstream as Any,
        "hasAnyDemand": hasDemand && future != nil, "subject": future as Any,
      ]
    )
  }

  @usableFromInline
  var playgroundDescription: Any { description }
}

/// Where a ``FutureSubscription`` is; outside the generic class, so that unspecialised code
/// needs no type metadata for it.
@usableFromInline
enum FutureSubscriptionPhase: UInt8, Sendable {
  case subscribing
  case waiting
  case sending
  case terminal
}

/// A stored `Downstream?`, as a generic parameter of ``FutureSubscription``; only `Optional`
/// conforms.
@usableFromInline
protocol FutureDownstreamSlot {
  associatedtype Downstream: Subscriber

  /// The subscriber, if still held.
  var downstream: Downstream? { get }

  /// Holds `downstream`, or nothing.
  init(holding downstream: Downstream?)
}

extension Optional: FutureDownstreamSlot where Wrapped: Subscriber {
  @usableFromInline
  typealias Downstream = Wrapped

  @inlinable
  var downstream: Wrapped? { self }

  @inlinable
  init(holding downstream: Wrapped?) {
    self = downstream
  }
}
