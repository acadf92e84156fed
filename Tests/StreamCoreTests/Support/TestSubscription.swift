import StreamCore

/// A subscription for tests: records what it is asked.
// Sendable: all mutable state is guarded by `lock`.
final class TestSubscription: Subscription, @unchecked Sendable {
  enum Call: Equatable {
    case request(Subscribers.Demand)
    case cancel
  }

  private let lock = Lock()
  private var _calls: [Call] = []

  var calls: [Call] { lock.withLock { _calls } }

  func request(_ demand: Subscribers.Demand) {
    lock.withLock { _calls.append(.request(demand)) }
  }

  func cancel() {
    lock.withLock { _calls.append(.cancel) }
  }
}

/// A subscriber that keeps its subscription only weakly, so tests can see it released.
final class WeakHolder<Input, Failure: Error>: Subscriber {
  weak var subscription: AnyObject?
  private(set) var strong: (any Subscription)?
  private let demand: Subscribers.Demand

  init(demand: Subscribers.Demand = .unlimited) {
    self.demand = demand
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription as AnyObject
    strong = subscription
    subscription.request(demand)
  }

  func receive(_ input: Input) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<Failure>) {
    strong = nil
  }

  /// Cancels and drops the strong reference.
  func cancelAndRelease() {
    strong?.cancel()
    strong = nil
  }
}
