public import StreamCore

/// The state of `flatMap`'s subscription, as data: each transition is a `mutating` function
/// called under the subscription's lock that returns what to do after it, so every transition
/// can be tested without threads.
///
/// ```
/// active --upstream value--> active (a child slot claimed; the caller subscribes the child)
/// active --child value--> active (delivered now by the caller if nobody is delivering and there
///   is demand, else queued)
/// active --upstream finished + no live child / last child finished after the upstream-->
///   completing (.finished goes after every queued value)
/// active --any failure--> completing (the other children cancelled; after a child's failure
///   the upstream is let go of, not cancelled, as in Combine; queued values go first while
///   there is demand, then the failure; the rest are dropped)
/// completing --the drain hands out the completion--> terminal
/// any --cancel()--> terminal (everything handed out, nothing more delivered)
/// ```
///
/// Values and the completion wait in a gated ``DeliveryQueue`` (`.afterDemandedValues`): the
/// thread that makes them deliverable delivers them, inside the subscription's gate. Queued values were sent before a failure (the failing
/// child's own among them), so they go first, as they would have if each send had completed
/// its delivery.
///
/// `children` is not generic and comes first, so a child's value reads its slot at a fixed
/// offset. Unspecialised code (a child publisher whose code is not inlinable) still looks up
/// this state's generic metadata on a child's value; see `Docs/Internals.md`.
@usableFromInline
struct FlatMapState<Input, Value, Failure: Error, Child> {
  /// Makes a child publisher from an upstream value.
  @usableFromInline typealias Transform = (Input) -> Child

  /// Where the subscription is in its life.
  @usableFromInline
  enum Phase {
    /// Upstream values and children's values are accepted; see ``Active``.
    case active(Active)
    /// Nothing more is accepted; the completion is in `queue`, behind the values queued before
    /// it.
    case completing
    /// The completion was handed to the drain, or the downstream cancelled: nothing is held.
    case terminal
  }

  /// What exists while the subscription is active (the child slots are in `children`, where the
  /// upstream is in its life in `upstream`).
  ///
  /// A class, so that `phase` is one reference: checking for `.active` or reading the transform
  /// on a value's path copies no payload. With the upstream's existential inline, `Phase` was
  /// address-only and each such check copied it.
  @usableFromInline
  final class Active {
    /// The upstream's subscription while the state's `upstream` is `.subscribed`, else a
    /// ``NoChildSubscription``. Read and written only under the subscription's lock, which
    /// excludes other access: no dynamic exclusivity check.
    @usableFromInline @exclusivity(unchecked) var upstreamSubscription: any Subscription
    /// Makes the child publishers.
    @usableFromInline let transform: Transform

    @inlinable
    init(transform: @escaping Transform) {
      self.upstreamSubscription = NoChildSubscription()
      self.transform = transform
    }
  }

  /// The upstream's life while active (its subscription is ``Active/upstreamSubscription``).
  /// Not in ``Active``: each child's `.finished` checks it, and reading it here needs no
  /// reference to the active state.
  @usableFromInline
  enum Upstream {
    case awaitingSubscription
    case subscribed
    case finished
    /// The upstream failed and its thread is cancelling the children, after the lock. An
    /// upstream event now comes from inside one of those cancels, after the failure: Combine's
    /// `flatMap`, which cancels the children under its lock, crashes there, and this traps
    /// (OpenCombine's `FlatMapTests.testCrashesWhenUpstreamFailsDuringChildCancellation`).
    case failing
  }

  /// A value waiting for demand or for the thread delivering, with the child that sent it.
  @usableFromInline
  struct Pending {
    @usableFromInline let value: Value
    /// Whose top-up the value's delivery triggers; ``InnerTag/just`` needs none.
    @usableFromInline let tag: InnerTag

    @inlinable
    init(value: Value, tag: InnerTag) {
      self.value = value
      self.tag = tag
    }
  }

  /// A child claimed for an upstream value: subscribe `transform(value)` with `tag`.
  ///
  /// Holds the ``Active`` state, which keeps the transform alive while the caller runs it after
  /// the lock: one reference taken over from the state's phase, rather than a copy of the
  /// closure on top of it.
  @usableFromInline
  struct Claim {
    @usableFromInline let tag: InnerTag
    @usableFromInline let active: Active

    @inlinable
    init(tag: InnerTag, active: Active) {
      self.tag = tag
      self.active = active
    }

    /// Makes the child publishers.
    @inlinable
    var transform: Transform { active.transform }
  }

  /// What the upstream's or a child's `.finished` hands out, to act on after the lock.
  ///
  /// Its subscriptions are plain existentials (a ``NoChildSubscription`` where there is none):
  /// each child's `.finished` makes and destroys one, which costs less without the optional.
  @usableFromInline
  struct Finished {
    /// The finished side's subscription, released after the lock.
    @usableFromInline var released: any Subscription
    /// The upstream, to ask for one more publisher when `asksOneMore` (a child finished and
    /// `maxPublishers` is limited).
    @usableFromInline var upstreamToAsk: any Subscription
    /// Whether to ask `upstreamToAsk` for one more publisher.
    @usableFromInline var asksOneMore: Bool
    /// The transform, released after the lock when the stream finished.
    @usableFromInline var transform: Transform?
    /// Whether `.finished` is deliverable: the caller passes the gate and drains.
    @usableFromInline var claimed: Bool

    /// Nothing to release yet.
    @inlinable
    init() {
      self.init(released: NoChildSubscription())
    }

    /// Releases `released`, stored as the value is made (no default assigned over first).
    @inlinable
    init(released: consuming any Subscription) {
      self.released = released
      self.upstreamToAsk = NoChildSubscription()
      self.asksOneMore = false
      self.transform = nil
      self.claimed = false
    }

    /// The upstream to ask for one more publisher, if any.
    @inlinable
    var requestOneMore: (any Subscription)? { asksOneMore ? upstreamToAsk : nil }
  }

  /// What a failure hands out, to act on after the lock.
  @usableFromInline
  struct Failed {
    /// Subscriptions to cancel: every child's but the failing one's.
    @usableFromInline var cancel: [any Subscription] = []
    /// The failing side's subscription, released after the lock.
    @usableFromInline var released: (any Subscription)?
    /// The upstream's subscription when a child failed, let go of without a cancel, as in
    /// Combine (OpenCombine's `FlatMapTests.testAllSubscriptionsReleasedOnChildFailure`).
    @usableFromInline var upstreamLetGo: (any Subscription)?
    /// The transform, released after the lock.
    @usableFromInline var transform: Transform?
    /// Whether the failure is deliverable: the caller passes the gate and drains.
    @usableFromInline var claimed = false

    @inlinable
    init() {}
  }

  /// What `cancel()` hands out: subscriptions to cancel, the rest to release after the lock.
  @usableFromInline
  struct Cancelled {
    /// Subscriptions to cancel: the upstream's and every child's.
    @usableFromInline var cancel: [any Subscription] = []
    /// The transform.
    @usableFromInline var transform: Transform?
    /// The values and the completion not delivered.
    @usableFromInline var remains: DeliveryQueueRemains<Pending, Failure>?

    @inlinable
    init() {}
  }

  /// One step of the drain, performed outside the lock.
  @usableFromInline
  enum Step {
    /// Deliver a queued value, then ask `topUp` (its child, if still current and not
    /// unlimited) for one more.
    case value(Value, topUp: (any Subscription)?)
    /// Deliver the completion; `dropped` holds the values a failure overtook, released after it.
    case completion(Subscribers.Completion<Failure>, dropped: RingBuffer<Pending>)
  }

  /// The child slots; empty unless active. Kept beside `phase` rather than in ``Active`` so
  /// that a child's value reads its slot in place, without copying the payload out; every
  /// transition out of `.active` empties it.
  @usableFromInline var children = FlatMapChildren()
  @usableFromInline var phase: Phase
  /// Where the upstream is in its life; meaningful while active.
  @usableFromInline var upstream = Upstream.awaitingSubscription
  @usableFromInline var queue = DeliveryQueue<Pending, Failure>(
    failureOrder: .afterDemandedValues,
    gated: true
  )

  /// An active state, awaiting the upstream's subscription.
  @inlinable
  init(transform: @escaping Transform) {
    phase = .active(Active(transform: transform))
  }

  /// Whether upstream and child values are still accepted.
  @inlinable
  var isActive: Bool {
    if case .active = phase { return true }
    return false
  }

  /// The upstream's subscription while active and subscribed, to ask for one more publisher.
  @inlinable
  var upstreamToAsk: (any Subscription)? {
    guard upstream == .subscribed, case .active(let active) = phase else { return nil }
    return active.upstreamSubscription
  }

  /// The transform for an upstream value while active; `nil` after the end.
  @inlinable
  var transformForValue: Transform? {
    if case .active(let active) = phase { return active.transform }
    checkUpstreamNotFailing()
    return nil
  }

  /// Traps when the upstream sends an event while its failure is cancelling the children.
  @inlinable
  func checkUpstreamNotFailing() {
    if upstream == .failing { trapEventDuringFailureCancellation("flatMap") }
  }

  /// The children were cancelled after the upstream's failure.
  @inlinable
  mutating func childrenCancelled() {
    if upstream == .failing { upstream = .finished }
  }

  // MARK: Upstream

  /// The upstream's subscription arrived; `false`: cancel it (a second one, or one after the
  /// end).
  @inlinable
  mutating func receive(subscription: any Subscription) -> Bool {
    guard upstream == .awaitingSubscription, case .active(let active) = phase else {
      return false
    }
    upstream = .subscribed
    active.upstreamSubscription = subscription
    return true
  }

  /// The upstream sent a value: claims a child slot, or `nil` after the end.
  @inlinable
  mutating func claimChild() -> Claim? {
    guard case .active(let active) = phase else {
      checkUpstreamNotFailing()
      return nil
    }
    return Claim(tag: children.claim(), active: active)
  }

  /// The upstream finished: `.finished` is queued once no child is live.
  @inlinable
  mutating func upstreamFinished() -> Finished {
    var finished = Finished()
    guard case .active(let active) = phase else {
      checkUpstreamNotFailing()
      return finished
    }
    if upstream == .subscribed { swap(&finished.released, &active.upstreamSubscription) }
    upstream = .finished
    finishIfIdle(&finished)
    return finished
  }

  /// The upstream (`child == nil`) or the current child `child` failed: everything else is
  /// cancelled and the failure queued; a stale child's failure, one after the end, or the
  /// upstream's after its `.finished`, is ignored (`nil`).
  @inlinable
  mutating func fail(_ error: Failure, from child: InnerTag?) -> Failed? {
    guard case .active(let active) = phase else {
      if child == nil { checkUpstreamNotFailing() }
      return nil
    }
    if let child, !children.isCurrent(child) { return nil }
    // A failure from an upstream that already finished breaks the protocol; the children it
    // started still run to the end.
    if child == nil, upstream == .finished { return nil }
    phase = .completing
    var failed = Failed()
    failed.transform = active.transform
    if upstream == .subscribed {
      let subscription = active.upstreamSubscription
      if child == nil {
        failed.released = subscription
      } else {
        failed.upstreamLetGo = subscription
      }
    }
    if child == nil { upstream = .failing }
    let taken = children.takeAll()
    for slot in 0..<taken.count where taken.isSubscribed(slot) {
      if slot == child?.slot {
        failed.released = taken.subscription(of: slot)
      } else {
        failed.cancel.append(taken.subscription(of: slot))
      }
    }
    failed.claimed = queue.finish(.failure(error))
    return failed
  }

  // MARK: Children

  /// The child `child` sent its subscription: ask it for the returned demand (`.unlimited`
  /// while the downstream's demand is, else one value at a time), or cancel it (`nil`: stale,
  /// a second subscription, or after the end).
  @inlinable @inline(__always)
  mutating func childSubscribed(
    _ child: InnerTag,
    _ subscription: any Subscription
  ) -> Subscribers.Demand? {
    guard case .active = phase, children.isCurrent(child) else { return nil }
    let unlimited = queue.demand == .unlimited
    // One access to the slot: checks for a first subscription and keeps it.
    guard children.withSlot(child.slot, { $0.subscribe(subscription, unlimited: unlimited) })
    else { return nil }
    return unlimited ? .unlimited : .max(1)
  }

  /// ``childSubscribed(_:_:)`` for a subscription the child handed as an object: kept in the
  /// slot by retaining it, where copying an `any Subscription` goes through its type's value
  /// witnesses.
  @inlinable @inline(__always)
  mutating func childSubscribed(
    _ child: InnerTag,
    object subscription: any Subscription & AnyObject
  ) -> Subscribers.Demand? {
    guard case .active = phase, children.isCurrent(child) else { return nil }
    let unlimited = queue.demand == .unlimited
    guard
      children.withSlot(child.slot, { $0.subscribe(object: subscription, unlimited: unlimited) })
    else { return nil }
    return unlimited ? .unlimited : .max(1)
  }

  /// A child (``InnerTag/just`` for a `Just`'s value, taken without subscribing) sent
  /// `value`; the caller is inside the delivery gate. When nothing is queued and there is
  /// demand, the caller delivers `value` itself; otherwise it is queued.
  @inlinable @inline(__always)
  mutating func receive(_ value: Value, from child: InnerTag) -> FlatMapValueOutcome {
    guard case .active = phase else { return .ignored }
    let fromJust = child.slot < 0
    if !fromJust, !children.isCurrent(child) { return .ignored }
    // The common case, without the queue: as `enqueue` then `nextStep` would do it. (`count`,
    // a stored property, rather than `isEmpty`: unspecialised code would call `isEmpty` with
    // the generic metadata of `Pending`, a lookup per value.)
    if queue.values.count == 0, queue.demand > .none {
      // As Combine: while the downstream's demand is unlimited a value asks its child for
      // nothing more, also a child asked one value at a time before a `request(.unlimited)`
      // made from inside `receive(_:)`.
      let unlimited = queue.demand == .unlimited
      queue.demand -= 1
      return .deliver(unlimited: unlimited || (!fromJust && children.isUnlimited(child.slot)))
    }
    return queue.enqueue(Pending(value: value, tag: child)) ? .drain : .queued
  }

  /// The current child `child` finished: its slot is freed, the upstream asked for one more
  /// publisher if `maxPublishers` is limited, and `.finished` queued if the upstream finished
  /// and no child is live.
  @inlinable
  mutating func childFinished(
    _ child: InnerTag,
    maxPublishers: Subscribers.Demand
  ) -> Finished {
    guard case .active = phase, children.isCurrent(child) else { return Finished() }
    var finished = Finished(released: children.finish(child))
    if maxPublishers != .unlimited, upstream == .subscribed, case .active(let active) = phase {
      finished.upstreamToAsk = active.upstreamSubscription
      finished.asksOneMore = true
    }
    finishIfIdle(&finished)
    return finished
  }

  /// The child `child` finished, for a subscription whose `maxPublishers` is unlimited: when
  /// that only frees the child's slot (the child is stale, or not the last one of a finished
  /// upstream), does so, sets `quiet` and returns the child's subscription (a
  /// ``NoChildSubscription`` if none) to release after the lock. Otherwise changes nothing and
  /// leaves `quiet` false: ``childFinished(_:maxPublishers:)`` queues `.finished`.
  ///
  /// The common case without a ``Finished``, whose two existentials each child's `.finished`
  /// would otherwise make and destroy.
  @inlinable @inline(__always)
  mutating func childFinishedQuietly(_ child: InnerTag, quiet: inout Bool) -> any Subscription {
    guard case .active = phase, children.isCurrent(child) else {
      quiet = true
      return NoChildSubscription()
    }
    guard children.live > 1 || upstream != .finished else { return NoChildSubscription() }
    quiet = true
    return children.finish(child)
  }

  /// Queues `.finished` if the upstream finished and no child is live.
  @inlinable
  mutating func finishIfIdle(_ finished: inout Finished) {
    guard children.live == 0, upstream == .finished, case .active(let active) = phase
    else { return }
    phase = .completing
    _ = children.takeAll()  // every slot is free: no subscription in them
    finished.transform = active.transform
    finished.claimed = queue.finish(.finished)
  }

  // MARK: Downstream

  /// The downstream asked for more; `true`: something is deliverable, the caller drains.
  @inlinable
  mutating func request(_ demand: Subscribers.Demand) -> Bool {
    queue.request(demand)
  }

  /// The downstream requested `.unlimited`: every subscribed child is marked unlimited and
  /// returned, to ask for `.unlimited` after the lock (as Combine, also a child asked for
  /// `.unlimited` before), in slot order.
  @inlinable
  mutating func childrenTurningUnlimited() -> [any Subscription] {
    guard case .active = phase, queue.demand == .unlimited else { return [] }
    var turning: [any Subscription] = []
    for index in 0..<children.count where children.isSubscribed(index) {
      children.withSlot(index) { $0.unlimited = true }
      turning.append(children.subscription(of: index))
    }
    return turning
  }

  /// The downstream cancelled: everything is handed out, nothing more is delivered. `nil` once
  /// terminal.
  @inlinable
  mutating func cancel() -> Cancelled? {
    var cancelled = Cancelled()
    switch phase {
    case .terminal:
      return nil
    case .completing:
      break
    case .active(let active):
      cancelled.transform = active.transform
      // The children first, then the upstream, as Combine.
      let taken = children.takeAll()
      for slot in 0..<taken.count where taken.isSubscribed(slot) {
        cancelled.cancel.append(taken.subscription(of: slot))
      }
      if upstream == .subscribed { cancelled.cancel.append(active.upstreamSubscription) }
    }
    phase = .terminal
    cancelled.remains = queue.cancel()
    return cancelled
  }

  /// The drain's next step, for the thread inside the gate; `nil` when nothing is left.
  /// `more` is the demand the previous delivery returned.
  @inlinable
  mutating func nextStep(adding more: Subscribers.Demand) -> Step? {
    switch queue.nextStep(adding: more) {
    case .none:
      return nil
    case .value(let pending):
      let tag = pending.tag
      var topUp: (any Subscription)?
      if case .active = phase, children.isCurrent(tag), children.isSubscribed(tag.slot),
        !children.isUnlimited(tag.slot)
      {
        topUp = children.subscription(of: tag.slot)
      }
      return .value(pending.value, topUp: topUp)
    case .completion(let completion, let dropped):
      phase = .terminal
      return .completion(completion, dropped: dropped)
    }
  }
}

/// What a child's value leads to (not generic: it crosses the lock on the child's path).
@usableFromInline
enum FlatMapValueOutcome: Equatable {
  /// The stream ended or the child was replaced: the value is dropped.
  case ignored
  /// Queued, for demand.
  case queued
  /// Queued behind other values, and deliverable: the caller drains.
  case drain
  /// One demand is taken: deliver the value now. `unlimited`: the child was asked for
  /// unlimited values, or the downstream's demand is unlimited, so the child is asked for no
  /// top-up (as Combine).
  case deliver(unlimited: Bool)
}
