import StreamCore

/// A publisher that breaks the `Subscriber` contract on purpose: it sends `value` (or, with
/// `value == nil`, `.finished`) to its subscriber without ever sending a subscription.
struct EarlyEventPublisher<Output>: Publisher {
  typealias Failure = Never

  /// Sent before the subscription; `nil` sends `.finished`.
  var value: Output?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    if let value {
      _ = subscriber.receive(value)
    } else {
      subscriber.receive(completion: .finished)
    }
  }
}

/// A publisher that, before sending any subscription, asks its subscriber for a value as if it
/// were the subscription: what Combine's own tests do to an operator's subscriber.
struct EarlyRequestPublisher<Output>: Publisher {
  typealias Failure = Never

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    (subscriber as? any Subscription)?.request(.max(1))
  }
}

/// A publisher that sends `value` (or, when `nil`, `.finished`) before its subscription, and then
/// hands the subscriber `subscription`: the oracle's `late V0.1 S0` and `late F0 S0`.
struct LateSubscriptionPublisher<Output>: Publisher {
  typealias Failure = Never

  /// Sent before the subscription; `nil` sends `.finished`.
  var value: Output?
  let subscription: SubscriptionProbe

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    if let value {
      _ = subscriber.receive(value)
    } else {
      subscriber.receive(completion: .finished)
    }
    subscriber.receive(subscription: subscription)
  }
}

/// A publisher that hands its subscriber two subscriptions, `first` then `second`.
struct TwoSubscriptionsPublisher<Output>: Publisher {
  typealias Failure = Never

  let first: SubscriptionProbe
  let second: SubscriptionProbe

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    subscriber.receive(subscription: first)
    subscriber.receive(subscription: second)
  }
}

/// A subscriber that requests `.unlimited`, and cancels its subscription from inside its first
/// `receive(_:)`, then returns `returned` from it.
// Sendable: used on one thread only.
final class CancelInReceiveSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  private var subscription: (any Subscription)?
  private let returned: Subscribers.Demand

  init(returning returned: Subscribers.Demand) {
    self.returned = returned
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    subscription.take()?.cancel()
    return returned
  }

  func receive(completion: Subscribers.Completion<Failure>) {}
}

/// What a test's closure saw, read after the call.
// Sendable: used on one thread only.
final class Seen<Value>: @unchecked Sendable {
  var value: Value?
}

/// The calls several ``LoggedPublisher``s' subscriptions received, in order across them.
// Sendable: used on one thread only.
final class CallLog: @unchecked Sendable {
  var calls: [String] = []
}

/// A publisher whose subscription logs `request`/`cancel` into a shared ``CallLog`` under its
/// name (`"inner.cancel"`, `"inner.request unlimited"`, `"inner.request 1"`), so a test can see
/// the order of calls across publishers; ``send(_:)`` sends a value to its subscriber.
// Sendable: used on one thread only.
final class LoggedPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
  let name: String
  let log: CallLog
  private var subscriber: AnySubscriber<Output, Failure>?

  init(_ name: String, log: CallLog) {
    self.name = name
    self.log = log
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    self.subscriber = AnySubscriber(subscriber)
    subscriber.receive(subscription: LoggedSubscription(name: name, log: log))
  }

  /// Sends `value`; returns the demand the subscriber returned.
  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand {
    subscriber?.receive(value) ?? .none
  }

  /// Sends `completion`, whatever was sent before (a misbehaving publisher may send more).
  func send(completion: Subscribers.Completion<Failure>) {
    subscriber?.receive(completion: completion)
  }
}

/// A misbehaving publisher: completes each subscriber with `completion` without sending it a
/// subscription first.
struct CompletesWithoutSubscription<Output, Failure: Error>: Publisher {
  let completion: Subscribers.Completion<Failure>

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(completion: completion)
  }
}

// Sendable: used on one thread only.
private final class LoggedSubscription: Subscription, @unchecked Sendable {
  let name: String
  let log: CallLog

  init(name: String, log: CallLog) {
    self.name = name
    self.log = log
  }

  func request(_ demand: Subscribers.Demand) {
    log.calls.append("\(name).request \(demand.max.map(String.init) ?? "unlimited")")
  }

  func cancel() { log.calls.append("\(name).cancel") }
}
