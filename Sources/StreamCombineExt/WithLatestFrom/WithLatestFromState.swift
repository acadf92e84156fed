import SignalOperators
public import StreamCore

/// The state of a `withLatestFrom` subscription.
///
/// ```
/// active --second's first value--> active            (`connect` handed out: the upstream is
///                                                      subscribed after the lock)
/// active --upstream value, no latest--> active      (dropped; one more asked of the upstream)
/// active --upstream value--> active                 (queued with the latest, drained)
/// active --upstream completion / second's failure--> completing (the other upstream cancelled)
/// active --second finishes without a value--> completing (.finished)
/// completing --the drain hands out the completion--> terminal
/// any --cancel()--> terminal
/// ```
///
/// As in CombineExt, the upstream is subscribed only once `second` has sent a value, so an
/// upstream value never waits for one; the subscriber's demand is kept until then. (An upstream
/// value without a latest one, dropped, can't happen then; it is kept as a guard.)
@usableFromInline
enum WithLatestFromState<Downstream: Subscriber, Input, Latest> {
  @usableFromInline typealias Failure = Downstream.Failure
  @usableFromInline typealias Pair = (Input, Latest)

  @usableFromInline struct Active {
    @usableFromInline let downstream: Downstream
    /// Upstream values paired with the latest, waiting for the drain. Its demand is unlimited:
    /// the upstream already keeps to the subscriber's.
    @usableFromInline var queue = DeliveryQueue<Pair, Failure>(failureOrder: .afterQueuedValues)
    @usableFromInline var upstream: (any Subscription)?
    @usableFromInline var other: (any Subscription)?
    /// `second`'s latest value.
    @usableFromInline var latest: Latest?
    /// Requested before the upstream's subscription arrived.
    @usableFromInline var pendingDemand = Subscribers.Demand.none
    /// Subscribes the subscription to the upstream; run, once, after `second`'s first value.
    @usableFromInline var connect: (() -> Void)?

    @inlinable init(downstream: Downstream, connect: (() -> Void)? = nil) {
      self.downstream = downstream
      self.connect = connect
      queue.demand = .unlimited
    }
  }

  /// What a value of `second` leads to, after the lock.
  @usableFromInline struct OtherValue {
    /// The latest value it replaces, released after the lock.
    @usableFromInline let replaced: Latest?
    /// Subscribes to the upstream: the first value of `second` has arrived.
    @usableFromInline let connect: (() -> Void)?

    @inlinable init(replaced: Latest?, connect: (() -> Void)?) {
      self.replaced = replaced
      self.connect = connect
    }
  }

  /// What `second` finishing leads to.
  @usableFromInline enum OtherFinished {
    /// Nothing ends; its subscription is released after the lock.
    case goesOn((any Subscription)?)
    /// It never sent a value, so no upstream value will ever be paired: finish.
    case ends
  }

  /// What an upstream value leads to.
  @usableFromInline enum ReceiveAction {
    /// No latest value yet (or the subscription ended): ask the upstream for one more.
    case dropped
    /// Nothing was queued and no one was delivering: the caller claimed the drain and delivers
    /// the value itself, paired with this latest value, to this subscriber, then runs the drain
    /// (which lets go of it at once when nothing arrived meanwhile).
    case direct(Downstream, Latest)
    /// Queued, and the caller claimed the drain.
    case claimed
    /// Queued for the thread already delivering, or ignored after the end.
    case queued
  }

  /// What a completion leads to, after the lock.
  @usableFromInline struct Finishing {
    /// The other upstream, to cancel.
    @usableFromInline let cancel: (any Subscription)?
    /// The completed upstream's subscription, released after the lock.
    @usableFromInline let ended: (any Subscription)?
    /// Whether the caller claimed the drain.
    @usableFromInline let claimed: Bool
    /// `second`'s latest value, released after the lock.
    @usableFromInline let latest: Latest?
    /// The upstream never subscribed to, released after the lock.
    @usableFromInline let connect: (() -> Void)?

    @inlinable init(
      cancel: (any Subscription)?,
      ended: (any Subscription)?,
      claimed: Bool,
      latest: Latest?,
      connect: (() -> Void)? = nil
    ) {
      self.cancel = cancel
      self.ended = ended
      self.claimed = claimed
      self.latest = latest
      self.connect = connect
    }
  }

  /// One step of the drain, performed outside the lock.
  @usableFromInline enum Step {
    case value(Downstream, Input, Latest)
    case completion(Downstream, Subscribers.Completion<Failure>, dropped: RingBuffer<Pair>)
  }

  /// What `cancel()` lets go of.
  @usableFromInline struct Cancelled {
    @usableFromInline let upstream: (any Subscription)?
    @usableFromInline let other: (any Subscription)?
    @usableFromInline let downstream: Downstream?
    @usableFromInline let latest: Latest?
    @usableFromInline let remains: DeliveryQueueRemains<Pair, Failure>?
    @usableFromInline let connect: (() -> Void)?

    @inlinable init(
      upstream: (any Subscription)?,
      other: (any Subscription)?,
      downstream: Downstream?,
      latest: Latest?,
      remains: DeliveryQueueRemains<Pair, Failure>?,
      connect: (() -> Void)? = nil
    ) {
      self.upstream = upstream
      self.other = other
      self.downstream = downstream
      self.latest = latest
      self.remains = remains
      self.connect = connect
    }
  }

  case active(Active)
  case completing(Downstream, DeliveryQueue<Pair, Failure>)
  case terminal

  /// The upstream's subscription arrived; returns the demand to ask of it, or `nil`: cancel it.
  @inlinable mutating func upstreamSubscribed(
    _ subscription: any Subscription
  ) -> Subscribers.Demand? {
    guard case .active(var active) = self, active.upstream == nil else { return nil }
    self = .terminal
    defer { self = .active(active) }
    active.upstream = subscription
    let demand = active.pendingDemand
    active.pendingDemand = .none
    return demand
  }

  /// `second`'s subscription arrived; `false`: cancel it.
  @inlinable mutating func otherSubscribed(_ subscription: any Subscription) -> Bool {
    guard case .active(var active) = self, active.other == nil else { return false }
    self = .terminal
    defer { self = .active(active) }
    active.other = subscription
    return true
  }

  /// Keeps what subscribes to the upstream, for `second`'s first value.
  @inlinable mutating func install(_ connect: @escaping () -> Void) {
    guard case .active(var active) = self else { return }
    self = .terminal
    defer { self = .active(active) }
    active.connect = connect
  }

  /// `second` sent a value; returns the one it replaces, to release after the lock, and, at
  /// the first value, what subscribes to the upstream, to run after it.
  @inlinable mutating func otherValue(_ value: Latest) -> OtherValue {
    guard case .active(var active) = self else { return OtherValue(replaced: nil, connect: nil) }
    self = .terminal
    defer { self = .active(active) }
    let replaced = active.latest.take()
    active.latest = value
    return OtherValue(replaced: replaced, connect: active.connect.take())
  }

  /// `second` finished: its last value stays, and its subscription is handed out to release
  /// after the lock; if it never sent one, the subscription is to finish.
  @inlinable mutating func otherFinished() -> OtherFinished {
    guard case .active(var active) = self else { return .goesOn(nil) }
    guard active.latest != nil else { return .ends }
    self = .terminal
    defer { self = .active(active) }
    return .goesOn(active.other.take())
  }

  @inlinable mutating func receive(_ input: Input) -> ReceiveAction {
    // The payload is moved out of the enum and back, not copied: a copy retains and releases
    // each of its references and keeps the queue's buffer from being uniquely referenced.
    switch consume self {
    case .active(var active):
      let action: ReceiveAction
      if let latest = active.latest {
        // The usual case: deliver at once, without a round trip through the queue.
        if active.queue.values.isEmpty, !active.queue.isCompleting, active.queue.drain.claim() {
          action = .direct(active.downstream, latest)
        } else {
          action = active.queue.enqueue((input, latest)) ? .claimed : .queued
        }
      } else {
        action = .dropped
      }
      self = .active(active)
      return action
    case let other:
      self = other
      return .queued
    }
  }

  /// The upstream completed (`fromUpstream`) or `second` failed: the first completion wins.
  @inlinable mutating func finish(
    _ completion: Subscribers.Completion<Failure>,
    fromUpstream: Bool
  ) -> Finishing {
    guard case .active(var active) = self else {
      return Finishing(cancel: nil, ended: nil, claimed: false, latest: nil)
    }
    self = .terminal
    let claimed = active.queue.finish(completion)
    self = .completing(active.downstream, active.queue)
    return Finishing(
      cancel: fromUpstream ? active.other : active.upstream,
      ended: fromUpstream ? active.upstream : active.other,
      claimed: claimed,
      latest: active.latest.take(),
      connect: active.connect.take()
    )
  }

  /// Returns the upstream's subscription to pass `demand` to, or `nil` (kept for when it
  /// arrives, or ignored after the end).
  @inlinable mutating func request(_ demand: Subscribers.Demand) -> (any Subscription)? {
    guard case .active(var active) = self else { return nil }
    if let upstream = active.upstream { return upstream }
    self = .terminal
    defer { self = .active(active) }
    active.pendingDemand += demand
    return nil
  }

  /// The drain's next step; `nil` after releasing the drain.
  @inlinable mutating func nextStep() -> Step? {
    // Moved out and back, as in `receive(_:)`.
    switch consume self {
    case .active(var active):
      let step = Self.takeStep(active.downstream, &active.queue)
      self = .active(active)
      return step
    case .completing(let downstream, var queue):
      let step = Self.takeStep(downstream, &queue)
      if case .completion = step {
        self = .terminal
        return step
      }
      self = .completing(downstream, queue)
      return step
    case .terminal:
      self = .terminal
      return nil
    }
  }

  @inlinable static func takeStep(
    _ downstream: Downstream,
    _ queue: inout DeliveryQueue<Pair, Failure>
  ) -> Step? {
    switch queue.nextStep() {
    case .value(let pair)?: return .value(downstream, pair.0, pair.1)
    case .completion(let completion, let dropped)?:
      return .completion(downstream, completion, dropped: dropped)
    case nil: return nil
    }
  }

  @inlinable mutating func cancel() -> Cancelled {
    let previous = self
    self = .terminal
    switch previous {
    case .active(var active):
      return Cancelled(
        upstream: active.upstream,
        other: active.other,
        downstream: active.downstream,
        latest: active.latest,
        remains: active.queue.cancel(),
        connect: active.connect
      )
    case .completing(let downstream, var queue):
      return Cancelled(
        upstream: nil,
        other: nil,
        downstream: downstream,
        latest: nil,
        remains: queue.cancel()
      )
    case .terminal:
      return Cancelled(upstream: nil, other: nil, downstream: nil, latest: nil, remains: nil)
    }
  }
}
