import SignalOperators
import StreamCore

/// One of the two publishers of an `amb`.
enum AmbRacer: Sendable {
  case first
  case second
}

/// The state of an `amb` subscription.
///
/// ```
/// racing --start()--> racing (started)              (the subscriber gets its subscription)
/// racing (started) --a value from one side--> won(side)   (the other side cancelled)
/// won(side) --its completion--> terminal
/// racing (started) --a completion from one side--> terminal  (the other side cancelled)
/// racing (not started) --a completion from one side--> ended  (the other side cancelled)
/// ended --takeEnding(), once the subscriber has its subscription--> terminal
/// any --cancel()--> terminal
/// ```
///
/// Both sides are subscribed before the subscriber gets its subscription, as in CombineExt, so
/// that what the subscriber sends from inside `receive(subscription:)` reaches them. A completion
/// that arrives before then waits in `ended`; a value can't, having no demand (one sent anyway
/// is dropped). While racing, every request is passed to both sides; a side subscribed later is
/// asked for all that was requested so far. Nothing is delivered while racing, so the winner's
/// outstanding demand is the subscriber's.
enum AmbState<Downstream: Subscriber> {
  struct Racing {
    let downstream: Downstream
    var first: (any Subscription)?
    var second: (any Subscription)?
    /// Everything requested so far.
    var requested = Subscribers.Demand.none
    /// Whether the subscriber is getting, or has, its subscription: events may go down.
    var started = false

    init(downstream: Downstream) {
      self.downstream = downstream
    }
  }

  /// A completion that ended the race before the subscriber had its subscription.
  struct Ended {
    let downstream: Downstream
    let completion: Subscribers.Completion<Downstream.Failure>
  }

  struct Won {
    let downstream: Downstream
    let side: AmbRacer
    let subscription: any Subscription
  }

  /// Where a value or completion goes, after the lock.
  struct Delivery {
    /// The subscriber, or `nil` when the completion waits for ``takeEnding()``.
    let downstream: Downstream?
    /// The losing side, to cancel before delivering.
    let loser: (any Subscription)?
    /// The winner's subscription, when the delivery ends it; released after the lock.
    let ended: (any Subscription)?
  }

  /// Subscriptions to pass a request to, or to cancel.
  struct Targets {
    var first: (any Subscription)?
    var second: (any Subscription)?
    /// The subscriber, when cancel lets go of it.
    var downstream: Downstream?
  }

  case racing(Racing)
  case won(Won)
  case ended(Ended)
  case terminal

  /// The subscriber is about to get its subscription: from now on, events go down. Returns the
  /// subscriber, or `nil` if the subscription already ended (cancelled).
  mutating func start() -> Downstream? {
    switch self {
    case .racing(var racing):
      racing.started = true
      self = .racing(racing)
      return racing.downstream
    case .won(let won): return won.downstream
    case .ended(let ended): return ended.downstream
    case .terminal: return nil
    }
  }

  /// The completion that ended the race before the subscriber had its subscription, to deliver
  /// now that it has; `nil` if there is none (or the subscriber cancelled meanwhile).
  mutating func takeEnding() -> Ended? {
    guard case .ended(let ended) = self else { return nil }
    self = .terminal
    return ended
  }

  /// A side's subscription arrived; returns the demand to ask of it, or `nil`: cancel it.
  mutating func subscribed(_ subscription: any Subscription, side: AmbRacer) -> Subscribers.Demand?
  {
    guard case .racing(var racing) = self else { return nil }
    switch side {
    case .first:
      guard racing.first == nil else { return nil }
      racing.first = subscription
    case .second:
      guard racing.second == nil else { return nil }
      racing.second = subscription
    }
    self = .racing(racing)
    return racing.requested
  }

  /// A side sent a value; returns where it goes, or `nil`: drop it (a loser's, or one sent
  /// before the subscriber had its subscription, without demand).
  mutating func receiveValue(from side: AmbRacer) -> Delivery? {
    switch self {
    case .racing(let racing):
      guard racing.started, let split = racing.split(side) else { return nil }
      self = .won(Won(downstream: racing.downstream, side: side, subscription: split.winner))
      return Delivery(downstream: racing.downstream, loser: split.loser, ended: nil)
    case .won(let won):
      guard won.side == side else { return nil }
      return Delivery(downstream: won.downstream, loser: nil, ended: nil)
    case .ended, .terminal:
      return nil
    }
  }

  /// A side completed; returns where the completion goes, or `nil`: ignore it (a loser's).
  /// Before the subscriber has its subscription, the completion is kept for ``takeEnding()``
  /// and the delivery has no subscriber.
  mutating func receiveCompletion(
    _ completion: Subscribers.Completion<Downstream.Failure>,
    from side: AmbRacer
  ) -> Delivery? {
    switch self {
    case .racing(let racing):
      guard let split = racing.split(side) else { return nil }
      guard racing.started else {
        self = .ended(Ended(downstream: racing.downstream, completion: completion))
        return Delivery(downstream: nil, loser: split.loser, ended: split.winner)
      }
      self = .terminal
      return Delivery(downstream: racing.downstream, loser: split.loser, ended: split.winner)
    case .won(let won):
      guard won.side == side else { return nil }
      self = .terminal
      return Delivery(downstream: won.downstream, loser: nil, ended: won.subscription)
    case .ended, .terminal:
      return nil
    }
  }

  /// Returns the subscriptions to pass `demand` to.
  mutating func request(_ demand: Subscribers.Demand) -> Targets {
    switch self {
    case .racing(var racing):
      racing.requested += demand
      self = .racing(racing)
      return Targets(first: racing.first, second: racing.second)
    case .won(let won):
      return Targets(first: won.subscription)
    case .ended, .terminal:
      return Targets()
    }
  }

  /// Whether `side` may still be asked for values: no winner yet, or it won.
  func admits(_ side: AmbRacer) -> Bool {
    switch self {
    case .racing: true
    case .won(let won): won.side == side
    case .ended, .terminal: false
    }
  }

  /// Ends the subscription; returns what to cancel and release after the lock.
  mutating func cancel() -> Targets {
    let previous = self
    self = .terminal
    switch previous {
    case .racing(let racing):
      return Targets(first: racing.first, second: racing.second, downstream: racing.downstream)
    case .won(let won):
      return Targets(first: won.subscription, downstream: won.downstream)
    case .ended(let ended):
      return Targets(downstream: ended.downstream)
    case .terminal:
      return Targets()
    }
  }
}

extension AmbState.Racing {
  /// The subscriptions of `side` (which must have one, having sent) and of the other side.
  func split(_ side: AmbRacer) -> (winner: any Subscription, loser: (any Subscription)?)? {
    switch side {
    case .first:
      guard let first else { return nil }
      return (first, second)
    case .second:
      guard let second else { return nil }
      return (second, first)
    }
  }
}
