public import StreamCore

/// One downstream subscription fed by a chain of publishers, one after another: the engine of
/// `Concatenate`, `Catch`, `TryCatch`, `Retry` and `RetryWhen`.
///
/// Each publisher in the chain is a *stage*. ``attach(_:onCompletion:)`` subscribes the next
/// stage; when it completes, its `onCompletion` decides whether the downstream completes or
/// another stage follows. The downstream sees one subscription (this object) for the whole chain.
/// Demand it requested and that was not yet delivered is carried over to the next stage.
///
/// ```
/// live(awaitingFirstStage) --first stage subscribes--> live(attached)  (downstream subscribed)
/// live(attached) --stage completes--> live(between) --decide (outside the lock)-->
///   .next: attach the next stage (through the drain, so synchronous failures don't recurse)
///   .complete: terminal
///   .wait: live(between, waiting) until resume(_:) attaches the next stage or finish(_:) ends
/// live --cancel() / finish(_:)--> terminal  (the live stage and the companion are cancelled)
/// ```
// Sendable: all mutable state is in `live`, guarded by `lock`; the downstream, the stages and
// the decisions are called outside it, and only the live stage delivers values.
//
// `@usableFromInline` with `@inlinable` paths, so that the operators built on it (their
// `receive(subscriber:)` is `@inlinable` too) run specialised for the client's publishers and
// downstream instead of through generic metadata lookups.
@usableFromInline
package final class SerialUpstreams<Downstream: Subscriber>: @unchecked Sendable, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline package typealias Output = Downstream.Input
  @usableFromInline package typealias Failure = Downstream.Failure

  /// What follows a completed stage.
  @usableFromInline
  package enum Step {
    /// The downstream completes with this.
    case complete(Subscribers.Completion<Failure>)
    /// Run this, which attaches the next stage.
    case next(() -> Void)
    /// Wait for ``resume(_:)`` or ``finish(_:)``; `then` runs (outside the lock) once the
    /// subscription is waiting, and may call either of them.
    case wait(then: () -> Void)
  }

  /// The live stage's subscription, as far as the downstream is concerned.
  @usableFromInline
  package enum StageLink {
    /// No stage has subscribed yet, so the downstream has no subscription yet either.
    case awaitingFirstStage
    /// A stage completed and the next one has not subscribed yet.
    case between
    case attached(any Subscription)

    @inlinable
    var subscription: (any Subscription)? {
      guard case .attached(let subscription) = self else { return nil }
      return subscription
    }

    @inlinable
    var isBetween: Bool {
      if case .between = self { true } else { false }
    }
  }

  /// The state while the subscription is live (`live` is `nil` once it ended).
  @usableFromInline
  package struct Live {
    @usableFromInline
    var downstream: Downstream
    @usableFromInline
    var link = StageLink.awaitingFirstStage
    /// Requested by the downstream and not yet delivered.
    @usableFromInline
    var demand = Subscribers.Demand.none
    /// The number of the live stage; events from older stages are ignored.
    @usableFromInline
    var stage = 0
    /// Claimed by the thread running attach work; others leave theirs in `pending`.
    @usableFromInline
    var drain = SerialDrain()
    /// Attach work that came while the drain was claimed (a stage completed while the previous
    /// one was being attached); a newer one supersedes it.
    @usableFromInline
    var pending: (() -> Void)?
    /// Whether a completed stage waits for ``resume(_:)`` (a `.wait` step).
    @usableFromInline
    var waiting = false
    /// Cancelled when the subscription ends: what decides about the next stage, for operators
    /// that subscribe to one (`RetryWhen`'s trigger).
    @usableFromInline
    var companion: (any Cancellable)?
    /// Calls into the downstream in progress (a stage's value, or the first stage's
    /// subscription); `finish(_:)` waits for them to return. Counted only where `finish(_:)`
    /// may be called (`finishes`).
    @usableFromInline
    var delivering = 0
    /// A completion `finish(_:)` decided while a delivery was in progress; the last delivering
    /// thread sends it.
    @usableFromInline
    var finishing: Subscribers.Completion<Failure>?
    /// `demand` when the first stage was left, which the mirror shows from then on (as
    /// Combine's `catch`, which counts demand for the first publisher only).
    @usableFromInline
    var firstStageDemand: Subscribers.Demand?

    @inlinable
    init(downstream: Downstream) {
      self.downstream = downstream
    }

    /// Runs `body` on this state in place: called as `live?.change(body)`, an optional's
    /// in-place access, so nothing is copied out of `live` (as `live != nil` would).
    @inlinable
    mutating func change<R>(_ body: (inout Live) -> R) -> R {
      body(&self)
    }
  }

  /// What the caller does with a stage's subscription.
  @usableFromInline
  package enum SubscribeAction {
    case cancel
    case first(Downstream)
    case request(Subscribers.Demand)
    case nothing
  }

  /// What a transition releases; the caller cancels or drops it after the lock.
  @usableFromInline
  package struct Released {
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var subscription: (any Subscription)?
    @usableFromInline
    var pending: (() -> Void)?
    @usableFromInline
    var companion: (any Cancellable)?
    /// Whether the downstream had not received its subscription yet.
    @usableFromInline
    var unsubscribed: Bool
    /// ``SerialUpstreams/held``: released with the rest, after the lock (its deinit may call
    /// back in).
    @usableFromInline
    var held: Any?

    @inlinable
    init(
      downstream: Downstream?,
      subscription: (any Subscription)?,
      pending: (() -> Void)?,
      companion: (any Cancellable)?,
      unsubscribed: Bool,
      held: Any?
    ) {
      self.downstream = downstream
      self.subscription = subscription
      self.pending = pending
      self.companion = companion
      self.unsubscribed = unsubscribed
      self.held = held
    }
  }

  @usableFromInline
  package let lock = Lock()
  /// `nil` once the subscription ended (cancelled, or the completion was handed out).
  /// Changed in place under `lock` (an optional's forced `inout`), so a transition copies
  /// nothing out of it.
  @usableFromInline @exclusivity(unchecked)
  package var live: Live?

  /// Kept until the subscription ends: the publisher of a later stage (`append`'s suffix), as
  /// Combine's subscription keeps it (OpenCombine's
  /// `ConcatenateTests.testReleasesSuffixOnCancellation`). Guarded by `lock`; outside ``Live``,
  /// which the value path changes in place, so that it stays small.
  @usableFromInline
  package var held: Any?

  @usableFromInline
  package let description: String

  /// Whether the demand the downstream returns from `receive(_:)` is requested from the live
  /// stage (and `.none` returned to it) rather than returned to it: `Retry`'s way, as Combine's.
  @usableFromInline
  package let requestsExtraDemand: Bool

  /// Whether the mirror shows the downstream and its outstanding demand (as Combine's `catch`
  /// and `tryCatch`) rather than no children.
  @usableFromInline
  package let reflectsDemand: Bool

  /// Whether ``finish(_:)`` may be called (`RetryWhen`): only then are the calls into the
  /// downstream counted (`delivering`), so that `finish(_:)` can leave its completion to the
  /// last of them. Without `finish(_:)` the only completions come from the stages, which the
  /// live stage's own delivery serialises, so a value costs one lock round trip instead of two.
  @usableFromInline
  package let finishes: Bool

  /// The contract breaches that trap, as they do in the Combine operator this serves.
  @usableFromInline
  package struct Checks: OptionSet, Sendable {
    @usableFromInline
    package let rawValue: UInt8

    @inlinable
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `request(.none)` traps (`catch`, `tryCatch`); otherwise it is passed to the live stage.
    @inlinable package static var requestNone: Checks { Checks(rawValue: 1) }
    /// A value from the live stage beyond the subscriber's demand traps, also one before any
    /// demand or before the subscription (`catch`, `tryCatch`, `retry`); otherwise
    /// (`append`/`prepend`) it is dropped.
    @inlinable package static var valueBeyondDemand: Checks { Checks(rawValue: 2) }
    /// A completion from a stage that already completed traps (`catch`, `tryCatch`: the failing
    /// upstream fails again, also from inside the handler); otherwise it is ignored.
    @inlinable package static var secondCompletion: Checks { Checks(rawValue: 4) }
  }

  @usableFromInline
  package let checks: Checks

  @inlinable
  package init(
    downstream: Downstream,
    name: String,
    requestsExtraDemand: Bool = false,
    reflectsDemand: Bool = false,
    finishes: Bool = false,
    checks: Checks = []
  ) {
    live = Live(downstream: downstream)
    self.description = name
    self.requestsExtraDemand = requestsExtraDemand
    self.reflectsDemand = reflectsDemand
    self.finishes = finishes
    self.checks = checks
  }

  /// No children, or `downstream` and `demand` (see `reflectsDemand`): what the downstream has
  /// requested and not received from the first stage, frozen when the next stage attaches.
  @usableFromInline
  package var customMirror: Mirror {
    guard reflectsDemand else { return Mirror(self, children: [:]) }
    let (downstream, demand) = lock.withLock { () -> (Downstream?, Subscribers.Demand) in
      guard let live else { return (nil, .none) }
      return (live.downstream, live.firstStageDemand ?? live.demand)
    }
    return Mirror(
      self,
      children: [
        "downstream": downstream.map { $0 as Any } ?? (nil as Downstream? as Any),
        "demand": demand,
      ]
    )
  }

  @usableFromInline
  package var playgroundDescription: Any { description }

  /// Changes the live state with `body`; returns `nil` once terminal.
  @inlinable
  package func withLive<R>(_ body: (inout Live) -> R) -> R? {
    lock.withLock { live?.change(body) }
  }

  /// Runs `work` now, or, if another call of `run` is under way (a stage completed while the
  /// previous one was being attached), right after it on that thread.
  @inlinable
  package func run(_ work: @escaping () -> Void) {
    var superseded: (() -> Void)?  // released after the lock
    let claimed =
      withLive { live -> Bool in
        superseded = live.pending.take()
        live.pending = work
        return live.drain.claim()
      } ?? false
    _ = superseded
    guard claimed else { return }
    SerialDrain.run(lock) { () -> (() -> Void)? in
      let next = live?.change { live -> (() -> Void)? in
        guard let next = live.pending.take() else {
          live.drain.release()
          return nil
        }
        return next
      }
      return next ?? nil
    } perform: { work in
      work()
      return true
    }
  }

  /// Subscribes `publisher` as the next stage. Call it from inside ``run(_:)``.
  @inlinable
  package func attach<P: Publisher>(
    _ publisher: P,
    onCompletion: @escaping (Subscribers.Completion<P.Failure>) -> Step
  ) where P.Output == Output {
    let number = withLive { live -> Int in
      if live.stage >= 1, live.firstStageDemand == nil { live.firstStageDemand = live.demand }
      live.stage += 1
      return live.stage
    }
    guard let number else { return }
    // The first stage's subscriber and the later ones' are of different types, as in Combine
    // (OpenCombine's `ConcatenateTests.testCombineIdentifier`: `append`'s prefix and suffix).
    if number == 1 {
      publisher.receive(
        subscriber: Stage<P.Failure, FirstStage>(
          serial: self,
          number: number,
          onCompletion: onCompletion
        )
      )
    } else {
      publisher.receive(
        subscriber: Stage<P.Failure, LaterStage>(
          serial: self,
          number: number,
          onCompletion: onCompletion
        )
      )
    }
  }

  @inlinable
  package func stageSubscribed(_ number: Int, _ subscription: any Subscription) {
    let action =
      withLive { live -> SubscribeAction in
        guard number == live.stage else { return .cancel }
        switch live.link {
        case .attached:
          return .cancel
        case .awaitingFirstStage:
          live.link = .attached(subscription)
          if finishes { live.delivering += 1 }
          return .first(live.downstream)
        case .between:
          live.link = .attached(subscription)
          return live.demand > 0 ? .request(live.demand) : .nothing
        }
      } ?? .cancel
    switch action {
    case .cancel: subscription.cancel()
    case .first(let downstream):
      downstream.receive(subscription: self)
      if finishes { deliveryReturned() }
    case .request(let demand): subscription.request(demand)
    case .nothing: break
    }
  }

  @inlinable
  package func stageValue(_ number: Int, _ value: Output) -> Subscribers.Demand {
    // Flattened under the lock: unwrapping a `Downstream??` after it copied the downstream
    // once more (a retain and a release per value).
    let target = lock.withLock { () -> Downstream? in
      let target = live?.change { live -> Downstream? in
        guard number == live.stage, live.finishing == nil else { return nil }
        guard live.demand > 0 else {
          if checks.contains(.valueBeyondDemand) { trapValueBeyondDemand(description) }
          return nil
        }
        live.demand -= 1
        if finishes { live.delivering += 1 }
        return live.downstream
      }
      return target ?? nil
    }
    guard let target else { return .none }
    let more = target.receive(value)
    if finishes { deliveryReturned() }
    guard more > 0 else { return .none }
    let outcome: (stale: Bool, subscription: (any Subscription)?) =
      withLive { live -> (stale: Bool, subscription: (any Subscription)?) in
        guard number == live.stage else { return (true, nil) }
        live.demand += more
        return (false, live.link.subscription)
      } ?? (false, nil)  // ended
    if outcome.stale { return .none }
    // As Combine: once ended (also by a cancel from inside the downstream's `receive(_:)`), the
    // demand the downstream returned still goes back to the stage that sent the value.
    guard requestsExtraDemand else { return more }
    outcome.subscription?.request(more)
    return .none
  }

  @inlinable
  package func stageCompleted<F: Error>(
    _ number: Int,
    _ completion: Subscribers.Completion<F>,
    _ onCompletion: (Subscribers.Completion<F>) -> Step
  ) {
    let finished = lock.withLock { () -> (any Subscription)? in
      let finished = live?.change { live -> (any Subscription)? in
        if checks.contains(.secondCompletion),
          number < live.stage || (number == live.stage && live.link.isBetween)
        {
          trapSecondCompletion(description)  // as Combine's `catch`/`tryCatch`
        }
        guard number == live.stage else { return nil }
        // As in Combine: a completion from a stage that hasn't sent its subscription yet (a
        // misbehaving upstream) is ignored.
        guard case .attached(let subscription) = live.link else { return nil }
        live.link = .between
        return subscription
      }
      return finished ?? nil
    }
    // A subscription: this stage is the live one; its subscription is released here.
    guard let ended = finished else { return }
    _ = ended
    switch onCompletion(completion) {
    case .complete(let completion): complete(completion)
    case .next(let work): run(work)
    case .wait(let then):
      let waiting = withLive { live -> Bool in
        live.waiting = true
        return true
      }
      guard waiting ?? false else { return }
      then()
    }
  }

  /// Attaches the next stage with `work` if a completed stage is waiting (a `.wait` step);
  /// otherwise does nothing and returns `false`.
  @usableFromInline
  @discardableResult
  package func resume(_ work: @escaping () -> Void) -> Bool {
    let resumed =
      withLive { live -> Bool in
        guard live.waiting else { return false }
        live.waiting = false
        return true
      } ?? false
    if resumed { run(work) }
    return resumed
  }

  /// Keeps `value` (see ``held``) until the subscription ends; call before ``run(_:)``.
  @usableFromInline
  package func hold(_ value: Any) {
    let replaced = lock.withLock { () -> Any? in
      defer { held = value }
      return held.take()
    }
    _ = replaced  // nil: held once, before the first stage
  }

  /// Keeps `companion`, to cancel when the subscription ends; `false` if it already ended (the
  /// caller cancels it).
  @usableFromInline
  package func keep(companion: any Cancellable) -> Bool {
    let kept = withLive { live -> Bool in
      precondition(live.companion == nil, "SerialUpstreams: a companion is already kept")
      live.companion = companion
      return true
    }
    return kept ?? false
  }

  /// Ends the subscription from outside the chain: cancels the live stage and the companion,
  /// then delivers `completion` (after an empty subscription, if the downstream had none yet).
  /// Only for a subscription made with `finishes`.
  ///
  /// It may run on any thread while a stage delivers on another: then the stage and the
  /// companion are cancelled at once, and the delivering thread sends the completion when its
  /// call returns, so the downstream is never called from two threads at once.
  @usableFromInline
  package func finish(_ completion: Subscribers.Completion<Failure>) {
    precondition(finishes, "SerialUpstreams: finish(_:) on a subscription made without finishes")
    let deferred = withLive { live -> FinishDeferral? in
      guard live.delivering > 0 else { return nil }
      guard live.finishing == nil else { return FinishDeferral() }
      live.finishing = completion
      live.stage += 1  // what the cancelled stage still sends is ignored
      let subscription = live.link.subscription
      live.link = .between
      return FinishDeferral(subscription: subscription, companion: live.companion.take())
    }
    switch deferred {
    case .none: return  // already ended
    case .some(.some(let deferral)):
      deferral.subscription?.cancel()
      deferral.companion?.cancel()
    case .some(.none):
      deliver(completion)
    }
  }

  /// What `finish(_:)` cancels when a delivery is in progress.
  @usableFromInline
  package struct FinishDeferral {
    @usableFromInline
    var subscription: (any Subscription)?
    @usableFromInline
    var companion: (any Cancellable)?

    @inlinable
    init(subscription: (any Subscription)? = nil, companion: (any Cancellable)? = nil) {
      self.subscription = subscription
      self.companion = companion
    }
  }

  /// Sends the completion `finish(_:)` left to the delivering threads, once the last returns.
  @inlinable
  package func deliveryReturned() {
    let completion = withLive { live -> Subscribers.Completion<Failure>? in
      live.delivering -= 1
      guard live.delivering == 0 else { return nil }
      return live.finishing
    }
    if let completion = completion ?? nil { deliver(completion) }
  }

  @inlinable
  package func deliver(_ completion: Subscribers.Completion<Failure>) {
    guard let released = end() else { return }
    released.subscription?.cancel()
    released.companion?.cancel()
    guard let downstream = released.downstream else { return }
    if released.unsubscribed { downstream.receive(subscription: Subscriptions.empty) }
    downstream.receive(completion: completion)
  }

  /// Ends the subscription; `nil` if it already ended.
  @inlinable
  package func end() -> Released? {
    lock.withLock {
      guard let live = live.take() else { return nil }
      var unsubscribed = false
      if case .awaitingFirstStage = live.link { unsubscribed = true }
      return Released(
        downstream: live.downstream,
        subscription: live.link.subscription,
        pending: live.pending,
        companion: live.companion,
        unsubscribed: unsubscribed,
        held: held.take()
      )
    }
  }

  @inlinable
  package func complete(_ completion: Subscribers.Completion<Failure>) {
    guard let released = end() else { return }
    released.companion?.cancel()
    released.downstream?.receive(completion: completion)
  }

  @inlinable
  package func request(_ demand: Subscribers.Demand) {
    if checks.contains(.requestNone) { demand.assertPositive() }
    let subscription = lock.withLock { () -> (any Subscription)? in
      let subscription = live?.change { live -> (any Subscription)? in
        live.demand += demand
        return live.link.subscription
      }
      return subscription ?? nil
    }
    subscription?.request(demand)
  }

  @inlinable
  package func cancel() {
    guard let released = end() else { return }
    released.subscription?.cancel()
    released.companion?.cancel()
  }
}

extension SerialUpstreams {
  /// The subscriber attached to one stage; it tags the stage's events with its number.
  /// `Position` (``FirstStage`` or ``LaterStage``) only makes the types differ.
  @usableFromInline
  package final class Stage<StageFailure: Error, Position>: Subscriber, Subscription,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable
  {
    @usableFromInline package typealias Input = Output
    @usableFromInline package typealias Failure = StageFailure

    @usableFromInline
    let serial: SerialUpstreams
    @usableFromInline
    let number: Int
    @usableFromInline
    let onCompletion: (Subscribers.Completion<StageFailure>) -> Step

    @inlinable
    init(
      serial: SerialUpstreams,
      number: Int,
      onCompletion: @escaping (Subscribers.Completion<StageFailure>) -> Step
    ) {
      self.serial = serial
      self.number = number
      self.onCompletion = onCompletion
    }

    @usableFromInline
    package var description: String { serial.description }

    @usableFromInline
    package var playgroundDescription: Any { description }

    /// The subscription's: in Combine the stages' subscribers share the downstream
    /// subscription's identifier (OpenCombine's `ConcatenateTests.testCombineIdentifier`).
    @usableFromInline
    package var combineIdentifier: CombineIdentifier { serial.combineIdentifier }

    /// The subscription's mirror: in Combine the stage's subscriber is the subscription.
    @usableFromInline
    package var customMirror: Mirror { serial.customMirror }

    /// As the subscription's: in Combine the stage's subscriber is the subscription
    /// (OpenCombine's `RetryTests.testRetryCancelBeforeSubscription`).
    @inlinable
    package func request(_ demand: Subscribers.Demand) {
      serial.request(demand)
    }

    /// As the subscription's.
    @inlinable
    package func cancel() {
      serial.cancel()
    }

    @inlinable
    package func receive(subscription: any Subscription) {
      serial.stageSubscribed(number, subscription)
    }

    @inlinable
    package func receive(_ input: Output) -> Subscribers.Demand {
      serial.stageValue(number, input)
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<StageFailure>) {
      serial.stageCompleted(number, completion, onCompletion)
    }
  }
}

/// Marks the subscriber of a ``SerialUpstreams``' first stage.
@usableFromInline
package enum FirstStage {}

/// Marks the subscriber of a ``SerialUpstreams``' later stages.
@usableFromInline
package enum LaterStage {}
