import StreamCore

/// What a ``Recorder`` saw, in order.
enum Event<Input, Failure: Error> {
  case subscription(String)
  case value(Input)
  case completion(Subscribers.Completion<Failure>)
}

extension Event: Equatable where Input: Equatable, Failure: Equatable {}

/// A subscriber for StreamCore's own tests: records every event, with demand set by the test.
///
/// StreamTesting's `RecordingSubscriber` is the public version of this; StreamCore's tests keep
/// their own so that the core does not test itself through a module built on it.
// Sendable: all mutable state is guarded by `lock`; closures run outside it.
final class Recorder<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
  private let lock = Lock()
  private var _events: [Event<Input, Failure>] = []
  private var _subscription: (any Subscription)?
  private let initialDemand: Subscribers.Demand?
  private let demandPerValue: (Input) -> Subscribers.Demand
  private let onValue: ((Recorder, Input) -> Void)?

  /// - Parameters:
  ///   - initialDemand: Requested in `receive(subscription:)`; `nil` requests nothing.
  ///   - demandPerValue: Returned from each `receive(_:)`.
  ///   - onValue: Runs (outside the lock) for each value, before the demand is returned.
  init(
    initialDemand: Subscribers.Demand? = .unlimited,
    demandPerValue: @escaping (Input) -> Subscribers.Demand = { _ in .none },
    onValue: ((Recorder, Input) -> Void)? = nil
  ) {
    self.initialDemand = initialDemand
    self.demandPerValue = demandPerValue
    self.onValue = onValue
  }

  var events: [Event<Input, Failure>] { lock.withLock { _events } }

  var values: [Input] {
    events.compactMap { if case .value(let value) = $0 { value } else { nil } }
  }

  var completions: [Subscribers.Completion<Failure>] {
    events.compactMap { if case .completion(let completion) = $0 { completion } else { nil } }
  }

  var subscription: (any Subscription)? { lock.withLock { _subscription } }

  func receive(subscription: any Subscription) {
    let text = String(describing: subscription)  // may lock the subscription: not under ours
    let replaced = lock.withLock { () -> (any Subscription)? in
      _events.append(.subscription(text))
      defer { _subscription = subscription }
      return _subscription
    }
    _ = replaced  // a replaced subscription is released after the lock
    if let initialDemand {
      subscription.request(initialDemand)
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    lock.withLock { _events.append(.value(input)) }
    onValue?(self, input)
    return demandPerValue(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let released = lock.withLock { () -> (any Subscription)? in
      _events.append(.completion(completion))
      defer { _subscription = nil }
      return _subscription
    }
    _ = released
  }

  func request(_ demand: Subscribers.Demand) {
    subscription?.request(demand)
  }

  func cancel() {
    subscription?.cancel()
  }
}

/// An error for tests.
struct TestError: Error, Equatable, Codable {
  var code = 1
}
