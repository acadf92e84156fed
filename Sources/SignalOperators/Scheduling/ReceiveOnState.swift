public import StreamCore

/// The state of a `receive(on:)` subscription, as data: each transition runs under the
/// operator's lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> subscribed
/// subscribed --receive(completion:)--> completing (the completion is queued after the values)
/// completing --an action takes the completion--> terminal
/// subscribed / completing --cancel()--> terminal (the queue is dropped)
/// ```
///
/// As Combine's: each value, and the completion, is scheduled as an action of its own, and
/// nothing counts demand here (requests go straight to the upstream). The events wait in
/// `queue`, and each action delivers the oldest one, so they arrive in order on any scheduler (a
/// concurrent queue runs actions in any order; the completion still comes last). An action that
/// runs on the thread already inside the subscriber's `receive(_:)` (an `ImmediateScheduler`
/// reached through a request made there) only counts itself in `owed`: the delivery under way
/// makes it once the subscriber returns, so a request from inside `receive(_:)` never nests.
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
    /// The upstream completed; its completion waits in the queue.
    case completing(Downstream, upstream: any Subscription)
    /// Completed or cancelled: nothing is held.
    case terminal
  }

  /// An event waiting for its action.
  @usableFromInline
  enum Event {
    case value(Value)
    case completion(Subscribers.Completion<Failure>)
  }

  @usableFromInline var phase: Phase
  /// Whether the subscriber's `receive(subscription:)` is running: an action that runs inside it
  /// on the same thread delivers at once, as Combine does, rather than after it.
  @usableFromInline var subscribing = false
  /// Events scheduled and not yet delivered, oldest first.
  @usableFromInline var queue = RingBuffer<Event>()
  /// Actions that ran on the thread inside the subscriber and left their delivery to it.
  @usableFromInline var owed = 0

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

  /// A value from the upstream: whether to schedule an action for it (only while subscribed, as
  /// in Combine); it waits in the queue.
  @inlinable
  mutating func receive(_ value: Value) -> Bool {
    guard case .subscribed = phase else { return false }
    queue.append(.value(value))
    return true
  }

  /// The upstream's completion: whether to schedule an action for it (only once, while
  /// subscribed); it waits in the queue, after the values.
  @inlinable
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .subscribed(let downstream, let upstream) = phase else { return false }
    phase = .completing(downstream, upstream: upstream)
    queue.append(.completion(completion))
    return true
  }

  /// An action: the oldest event (in `event`) and the subscriber to deliver it to. `nil` if the
  /// subscription ended, or if `holdsGate` (this thread is inside the subscriber's
  /// `receive(_:)`): then the action is owed to that delivery. Taking the completion ends the
  /// subscription; what the state held goes out in `released`.
  @inlinable
  mutating func take(
    holdsGate: Bool,
    event: inout Event?,
    released: inout Phase?
  ) -> Downstream? {
    // No tuple here: this may run unspecialised, where each tuple type costs a metadata lookup.
    switch phase {
    case .subscribed(let downstream, _), .completing(let downstream, _):
      if holdsGate, !subscribing {
        owed += 1
        return nil
      }
      guard let next = queue.popFirst() else { return nil }
      if case .completion = next {
        released = phase
        phase = .terminal
      }
      event = next
      return downstream
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// The next owed action, for the thread inside the subscriber once it returned: as
  /// ``take(holdsGate:event:released:)``, or `nil` if none is owed.
  @inlinable
  mutating func takeOwed(event: inout Event?, released: inout Phase?) -> Downstream? {
    guard owed > 0 else { return nil }
    owed -= 1
    return take(holdsGate: false, event: &event, released: &released)
  }

  /// The upstream that demand returned from `receive(_:)` is requested from: while subscribed,
  /// and once the upstream completed (a value that was queued before the completion), as in
  /// Combine; not once cancelled.
  @inlinable
  var returnedDemandTarget: (any Subscription)? {
    switch phase {
    case .subscribed(_, let upstream), .completing(_, let upstream): upstream
    case .awaitingSubscription, .terminal: nil
    }
  }

  /// The upstream a request goes to: only while subscribed, as in Combine.
  @inlinable
  var requestTarget: (any Subscription)? {
    if case .subscribed(_, let upstream) = phase { return upstream }
    return nil
  }

  /// Cancels: the upstream to cancel, if subscribed. What the state held (the subscriber, the
  /// queued events) is handed out in `released`, to be let go after the lock.
  @inlinable
  mutating func cancel(released: inout (Phase, RingBuffer<Event>)?) -> (any Subscription)? {
    let upstream: (any Subscription)?
    switch phase {
    case .subscribed(_, let subscription): upstream = subscription
    case .completing: upstream = nil
    case .awaitingSubscription, .terminal: return nil
    }
    released = (phase, queue)
    phase = .terminal
    queue = RingBuffer()
    owed = 0
    return upstream
  }
}
