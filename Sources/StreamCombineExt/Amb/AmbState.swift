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
/// racing --a value or completion from one side--> won(side)   (the other side cancelled)
/// won(side) --its completion--> terminal
/// racing --a completion from one side--> terminal             (the other side cancelled)
/// any --cancel()--> terminal
/// ```
///
/// While racing, every request is passed to both sides; a side subscribed later is asked for all
/// that was requested so far. Nothing is delivered while racing, so the winner's outstanding
/// demand is the subscriber's.
enum AmbState<Downstream: Subscriber> {
  struct Racing {
    let downstream: Downstream
    var first: (any Subscription)?
    var second: (any Subscription)?
    /// Everything requested so far.
    var requested = Subscribers.Demand.none

    init(downstream: Downstream) {
      self.downstream = downstream
    }
  }

  struct Won {
    let downstream: Downstream
    let side: AmbRacer
    let subscription: any Subscription
  }

  /// Where a value or completion goes, after the lock.
  struct Delivery {
    let downstream: Downstream
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
  case terminal

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

  /// A side sent a value; returns where it goes, or `nil`: drop it (a loser's).
  mutating func receiveValue(from side: AmbRacer) -> Delivery? {
    switch self {
    case .racing(let racing):
      guard let split = racing.split(side) else { return nil }
      self = .won(Won(downstream: racing.downstream, side: side, subscription: split.winner))
      return Delivery(downstream: racing.downstream, loser: split.loser, ended: nil)
    case .won(let won):
      guard won.side == side else { return nil }
      return Delivery(downstream: won.downstream, loser: nil, ended: nil)
    case .terminal:
      return nil
    }
  }

  /// A side completed; returns where the completion goes, or `nil`: ignore it (a loser's).
  mutating func receiveCompletion(from side: AmbRacer) -> Delivery? {
    switch self {
    case .racing(let racing):
      guard let split = racing.split(side) else { return nil }
      self = .terminal
      return Delivery(downstream: racing.downstream, loser: split.loser, ended: split.winner)
    case .won(let won):
      guard won.side == side else { return nil }
      self = .terminal
      return Delivery(downstream: won.downstream, loser: nil, ended: won.subscription)
    case .terminal:
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
    case .terminal:
      return Targets()
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
