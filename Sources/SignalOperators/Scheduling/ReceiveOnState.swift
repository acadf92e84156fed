public import StreamCore

/// The state of a `receive(on:)` subscription, as data: each transition runs under the
/// operator's lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> subscribed
/// subscribed --receive(completion:)--> completing (the completion is queued after the values)
/// completing --an action takes the completion--> terminal
/// subscribed --cancel()--> terminal (the queue is dropped)
/// completing --cancel()--> completing (receive(on:), as Combine's); terminal (timeout)
/// subscribed --timeOut()--> completing (timeout: the values are dropped, its completion queued)
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
  ///
  /// Once the upstream's completion is queued, `receive(on:)`'s cancel does nothing, as
  /// Combine's: the queued values and the completion are still delivered (OpenCombine's
  /// `ReceiveOnTests.testStrongCaptureWhenSchedulingCompletion`). `timeout`'s cancel
  /// (`endsCompleting`) still ends it there and cancels the upstream, as Combine's.
  @inlinable
  mutating func cancel(
    endsCompleting: Bool = false,
    released: inout (Phase, RingBuffer<Event>)?
  ) -> (any Subscription)? {
    let upstream: (any Subscription)?
    switch phase {
    case .subscribed(_, let subscription): upstream = subscription
    case .completing(_, let subscription):
      guard endsCompleting else { return nil }
      upstream = subscription
    case .awaitingSubscription, .terminal: return nil
    }
    released = (phase, queue)
    phase = .terminal
    queue = RingBuffer()
    owed = 0
    return upstream
  }

  /// `timeout`'s timer ran out while subscribed: the values not yet delivered are dropped
  /// (handed out, to be let go after the lock) and nothing more is taken from the upstream,
  /// which the caller cancels; ``queueTimeout(_:)`` then queues the completion.
  mutating func timeOut() -> (upstream: any Subscription, dropped: RingBuffer<Event>)? {
    guard case .subscribed(let downstream, let upstream) = phase else { return nil }
    phase = .completing(downstream, upstream: upstream)
    defer { queue = RingBuffer() }
    return (upstream, queue)
  }

  /// Queues the completion of a timeout; `false` if the subscriber cancelled meanwhile.
  mutating func queueTimeout(_ completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .completing = phase, queue.isEmpty else { return false }
    queue.append(.completion(completion))
    return true
  }
}

/// An inner subscriber that delivers each event by a scheduled action of its own, through a
/// ``ReceiveOnState`` and a gate: `receive(on:)` (and `delay`, the same subscriber with its
/// actions scheduled later) and `timeout`. The action and the delivery are shared here.
@usableFromInline
protocol ScheduledDelivery: AnyObject {
  associatedtype Downstream: Subscriber
  /// Guards `state`.
  var lock: Lock { get }
  /// Held while the subscriber is called (Combine's per-subscriber lock).
  var gate: DeliveryGate { get }
  /// The queue and the phase.
  var state: ReceiveOnState<Downstream> { get set }
}

extension ScheduledDelivery {
  /// An action, on the scheduler: delivers the oldest queued event holding the gate, then
  /// the actions owed to it; or, on the thread already inside the subscriber, leaves its
  /// delivery to that call.
  @inlinable
  func scheduledAction() {
    typealias State = ReceiveOnState<Downstream>
    let me = ThreadID.current
    if gate.isHeld(by: me) {
      var event: State.Event?
      var released: State.Phase?
      let downstream = lock.withLock {
        state.take(holdsGate: true, event: &event, released: &released)
      }
      _ = released
      // Inside `receive(subscription:)`: delivered at once, as in Combine.
      if let downstream, let event { deliver(event, to: downstream) }
      return
    }
    gate.pass(as: me) {
      var event: State.Event?
      var released: State.Phase?
      var downstream = lock.withLock {
        state.take(holdsGate: false, event: &event, released: &released)
      }
      while let target = downstream, let next = event {
        deliver(next, to: target)
        event = nil
        downstream = lock.withLock { state.takeOwed(event: &event, released: &released) }
      }
      _ = released
    }
  }

  /// Delivers one event; demand the subscriber returns goes to the upstream.
  @inlinable
  func deliver(_ event: ReceiveOnState<Downstream>.Event, to downstream: Downstream) {
    switch event {
    case .value(let value):
      let more = downstream.receive(value)
      if more > .none {
        lock.withLock { state.returnedDemandTarget }?.request(more)
      }
    case .completion(let completion):
      downstream.receive(completion: completion)
    }
  }
}
