public import StreamCore

/// The state of a `receive(on:)` subscription, as data: each transition runs under the
/// operator's lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> subscribed
/// subscribed --receive(completion:)--> completing (the completion is scheduled; values scheduled
///   before it are still delivered, and the demand they return still requested)
/// completing --the completion's action takes it--> terminal
/// subscribed / completing --cancel()--> terminal
/// ```
///
/// As Combine's: each value is scheduled as an action of its own, which carries the value, and
/// nothing counts demand here (requests go straight to the upstream). What the state adds is
/// `deferred`: an action that runs on the thread already delivering to the subscriber (an
/// `ImmediateScheduler`, or a scheduler that runs actions inline, reached from inside
/// `receive(_:)`) leaves its delivery there for that delivery, which makes it once the
/// subscriber returns, so a request from inside `receive(_:)` never nests another delivery.
@usableFromInline
struct ReceiveOnState<Downstream: Subscriber> {
  @usableFromInline typealias Value = Downstream.Input
  @usableFromInline typealias Failure = Downstream.Failure

  /// Where the subscription is in its life.
  @usableFromInline
  enum Phase {
    /// Before the upstream's subscription arrives.
    case awaitingSubscription(Downstream)
    /// Subscribed: values are scheduled, requests go straight to `upstream`.
    case subscribed(Downstream, upstream: any Subscription)
    /// The upstream completed and the completion is scheduled.
    case completing(Downstream, upstream: any Subscription)
    /// Completed or cancelled: nothing is held.
    case terminal
  }

  /// A delivery to make: one left for the thread already inside the subscriber.
  @usableFromInline
  enum Delivery {
    case value(Value)
    case completion(Subscribers.Completion<Failure>)
  }

  @usableFromInline var phase: Phase
  /// Whether the subscriber's `receive(subscription:)` is running: an action that runs inside it
  /// on the same thread (a request there, on an `ImmediateScheduler`) delivers at once, as
  /// Combine does, rather than after it.
  @usableFromInline var subscribing = false
  /// Deliveries left for the thread already inside the subscriber, oldest first.
  @usableFromInline var deferred = RingBuffer<Delivery>()

  @inlinable
  init(downstream: Downstream) {
    phase = .awaitingSubscription(downstream)
  }

  /// The upstream's subscription: the downstream to hand this operator's subscription to, or
  /// `nil` if it came too late (the caller cancels it).
  @inlinable
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = phase else { return nil }
    phase = .subscribed(downstream, upstream: subscription)
    subscribing = true
    return downstream
  }

  /// Whether a value from the upstream is scheduled: only while subscribed, as in Combine.
  @inlinable
  var acceptsValues: Bool {
    if case .subscribed = phase { return true }
    return false
  }

  /// A value's action: the subscriber to deliver `value` to, or `nil` if the subscription
  /// ended, or if `holdsGate` (this thread is inside the subscriber's `receive(_:)`): then the
  /// value is left to that call (`deferred`).
  @inlinable
  mutating func take(_ value: Value, holdsGate: Bool) -> Downstream? {
    // No tuple here: this runs unspecialised on some schedulers, where each tuple type costs a
    // metadata lookup.
    switch phase {
    case .subscribed(let downstream, _), .completing(let downstream, _):
      if holdsGate, !subscribing {
        deferred.append(.value(value))
        return nil
      }
      return downstream
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// The upstream that demand returned from `receive(_:)` is requested from: while subscribed,
  /// and once the upstream completed (a value scheduled before the completion), as in Combine;
  /// not once cancelled.
  @inlinable
  var returnedDemandTarget: (any Subscription)? {
    switch phase {
    case .subscribed(_, let upstream), .completing(_, let upstream): upstream
    case .awaitingSubscription, .terminal: nil
    }
  }

  /// The subscriber a scheduled value goes to, with the upstream to request the demand it
  /// returns from; `nil` once cancelled or completed.
  @inlinable
  var target: (Downstream, upstream: any Subscription)? {
    switch phase {
    case .subscribed(let downstream, let upstream), .completing(let downstream, let upstream):
      (downstream, upstream)
    case .awaitingSubscription, .terminal:
      nil
    }
  }

  /// The upstream's completion: whether to schedule it (only once, while subscribed).
  @inlinable
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .subscribed(let downstream, let upstream) = phase else { return false }
    phase = .completing(downstream, upstream: upstream)
    return true
  }

  /// The completion's action: the subscriber to send it to, now terminal; `nil` if cancelled.
  /// What the state held is handed out in `released`, to be let go after the lock.
  @inlinable
  mutating func takeForCompletion(released: inout Phase?) -> Downstream? {
    guard case .completing(let downstream, _) = phase else { return nil }
    released = phase
    phase = .terminal
    return downstream
  }

  /// The upstream a request goes to: only while subscribed, as in Combine.
  @inlinable
  var requestTarget: (any Subscription)? {
    if case .subscribed(_, let upstream) = phase { return upstream }
    return nil
  }

  /// The next deferred delivery for the thread inside the subscriber, with the subscriber; a
  /// completion also ends the subscription (what the state held goes out in `released`). `nil`
  /// when nothing waits, or once cancelled.
  @inlinable
  mutating func nextDeferred(released: inout Phase?) -> (Delivery, Downstream)? {
    guard let next = deferred.popFirst() else { return nil }
    switch phase {
    case .subscribed(let downstream, _), .completing(let downstream, _):
      if case .completion = next {
        released = phase
        phase = .terminal
      }
      return (next, downstream)
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Cancels: the upstream to cancel, if subscribed. What the state held (the subscriber,
  /// deferred values) is handed out in `released`, to be let go after the lock.
  @inlinable
  mutating func cancel(released: inout (Phase, RingBuffer<Delivery>)?) -> (any Subscription)? {
    let upstream: (any Subscription)?
    switch phase {
    case .subscribed(_, let subscription): upstream = subscription
    case .completing: upstream = nil
    case .awaitingSubscription, .terminal: return nil
    }
    released = (phase, deferred)
    phase = .terminal
    deferred = RingBuffer()
    return upstream
  }
}
