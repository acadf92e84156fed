import Dispatch
import StreamCore

/// A subscriber that keeps nothing of its subscription: it requests `.unlimited` and lets the
/// subscription go, so only what the operator itself keeps (a scheduled action, a timer) holds
/// the pipeline alive.
final class ForgetfulListener<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  // Unchecked: the tests call it from one thread (a `TestScheduler`'s).
  private(set) var values: [Input] = []
  private(set) var completion: Subscribers.Completion<Failure>?

  func receive(subscription: any Subscription) {
    subscription.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    self.completion = completion
  }
}

/// A publisher that sends an inert subscription and then its values, and keeps no subscriber.
struct ForgetfulPublisher<Output, Failure: Error>: Publisher {
  let values: [Output]

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Subscriptions.empty)
    for value in values { _ = subscriber.receive(value) }
  }
}

/// A publisher whose subscription signals `cancelled` when it is cancelled, and does nothing
/// else; it keeps no subscriber.
struct SignallingUpstream<Output, Failure: Error>: Publisher {
  let cancelled: DispatchSemaphore

  private final class Signalling: Subscription {
    let cancelled: DispatchSemaphore
    init(cancelled: DispatchSemaphore) { self.cancelled = cancelled }
    func request(_ demand: Subscribers.Demand) {}
    func cancel() { cancelled.signal() }
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Signalling(cancelled: cancelled))
  }
}
