import Dispatch
import StreamCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A publisher for one subscriber that never drops a value: `send` waits (yielding the thread)
/// until the subscriber has demand, so a concurrency test knows every value was delivered
/// upstream of the operator under test.
// Sendable: all mutable state is guarded by `lock`; the subscriber is called outside it.
final class CombiningProducer<Output>: Publisher, @unchecked Sendable {
  typealias Failure = Never

  private let lock = Lock()
  private var demand = Subscribers.Demand.none
  private var cancelled = false
  /// Set once a `send` waited a minute for demand in vain; later sends give up at once.
  private var gaveUp = false
  private var send: ((Output) -> Subscribers.Demand)?

  /// Whether the subscriber cancelled.
  var isCancelled: Bool { lock.withLock { cancelled } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    lock.withLock { send = { subscriber.receive($0) } }
    subscriber.receive(subscription: CombiningProducerSubscription(producer: self))
  }

  /// Sends `value` once there is demand; gives up and returns `false` if cancelled, or if no
  /// demand came within a minute (then this and later values are missing and the test fails,
  /// where an unbounded wait would hang the run).
  @discardableResult
  func send(_ value: Output) -> Bool {
    let deadline = DispatchTime.now() + .seconds(60)
    while true {
      let target = lock.withLock { () -> ((Output) -> Subscribers.Demand)?? in
        if cancelled || gaveUp { return .some(nil) }
        guard demand > .none, let send else { return nil }
        demand -= 1
        return .some(send)
      }
      switch target {
      case .none:
        if DispatchTime.now() >= deadline {
          lock.withLock { gaveUp = true }
          return false
        }
        sched_yield()
      case .some(nil):
        return false
      case .some(let send?):
        let more = send(value)
        if more > .none { lock.withLock { demand += more } }
        return true
      }
    }
  }

  fileprivate func request(_ more: Subscribers.Demand) {
    lock.withLock { demand += more }
  }

  fileprivate func cancel() {
    let released = lock.withLock { () -> ((Output) -> Subscribers.Demand)? in
      cancelled = true
      return send.take()
    }
    _ = released
  }
}

private final class CombiningProducerSubscription<Output>: Subscription, Sendable {
  let producer: CombiningProducer<Output>

  init(producer: CombiningProducer<Output>) {
    self.producer = producer
  }

  func request(_ demand: Subscribers.Demand) {
    producer.request(demand)
  }

  func cancel() {
    producer.cancel()
  }
}

/// A subscriber that records values and checks that calls never overlap and never exceed the
/// demand it gave.
// Sendable: mutable state is guarded by `lock`; `inside` is atomic.
final class CombiningProbe<Input>: Subscriber, @unchecked Sendable {
  typealias Failure = Never

  private let lock = Lock()
  private let inside = Atomic<Bool>(false)
  private var recorded: [Input] = []
  private var problems: [String] = []
  private var demand = Subscribers.Demand.none
  private var subscription: (any Subscription)?
  private var done = false
  private let initialDemand: Subscribers.Demand
  private let demandPerValue: Subscribers.Demand
  /// Whether `demandPerValue` is requested from inside `receive(_:)` rather than returned.
  private let requestsFromReceive: Bool

  init(
    initialDemand: Subscribers.Demand = .unlimited,
    demandPerValue: Subscribers.Demand = .none,
    requestsFromReceive: Bool = false
  ) {
    self.initialDemand = initialDemand
    self.demandPerValue = demandPerValue
    self.requestsFromReceive = requestsFromReceive
  }

  var values: [Input] { lock.withLock { recorded } }
  var violations: [String] { lock.withLock { problems } }
  var isFinished: Bool { lock.withLock { done } }

  func cancel() {
    let subscription = lock.withLock { self.subscription.take() }
    subscription?.cancel()
  }

  func receive(subscription: any Subscription) {
    enter()
    let replaced = lock.withLock { () -> (any Subscription)? in
      defer { self.subscription = subscription }
      demand = initialDemand
      return self.subscription
    }
    _ = replaced  // released after the lock
    leave()
    subscription.request(initialDemand)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    enter()
    let subscription = lock.withLock { () -> (any Subscription)? in
      if demand == .none { problems.append("value beyond demand") }
      demand -= 1
      demand += demandPerValue
      recorded.append(input)
      return self.subscription
    }
    leave()
    guard requestsFromReceive else { return demandPerValue }
    if demandPerValue > .none { subscription?.request(demandPerValue) }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    enter()
    let released = lock.withLock { () -> (any Subscription)? in
      if done { problems.append("second completion") }
      done = true
      return subscription.take()
    }
    _ = released  // the subscription is released after the lock
    leave()
  }

  private func enter() {
    if inside.exchange(true, ordering: .acquiring) {
      lock.withLock { problems.append("overlapping calls") }
    }
  }

  private func leave() {
    inside.store(false, ordering: .releasing)
  }
}

/// A publisher for one subscriber that sends whenever told, ignoring demand, to fill an
/// operator's queues beyond what it asked for; `cancelled` tells whether it was cancelled.
// Sendable: all mutable state is guarded by `lock`; the subscriber is called outside it.
final class CombiningPushSource<Output, Failure: Error>: Publisher, @unchecked Sendable {
  private let lock = Lock()
  private var target: AnySubscriber<Output, Failure>?
  private var wasCancelled = false

  var cancelled: Bool { lock.withLock { wasCancelled } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    lock.withLock { target = AnySubscriber(subscriber) }
    subscriber.receive(
      subscription: CombiningPushSubscription { [weak self] in
        guard let self else { return }
        let released = lock.withLock { () -> AnySubscriber<Output, Failure>? in
          wasCancelled = true
          return target.take()
        }
        _ = released
      }
    )
  }

  /// Sends `value`; returns the demand the subscriber returned (`.none` once cancelled).
  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand {
    lock.withLock { target }?.receive(value) ?? .none
  }

  func send(completion: Subscribers.Completion<Failure>) {
    lock.withLock { target.take() }?.receive(completion: completion)
  }
}

private final class CombiningPushSubscription: Subscription, @unchecked Sendable {
  // Sendable: `onCancel` is immutable and only called once, guarded by the source's lock.
  let onCancel: () -> Void

  init(onCancel: @escaping () -> Void) {
    self.onCancel = onCancel
  }

  func request(_ demand: Subscribers.Demand) {}

  func cancel() { onCancel() }
}

/// Tracks how deeply a closure is nested in itself.
// Sendable: mutable state is guarded by `lock`.
final class CombiningDepth: @unchecked Sendable {
  private let lock = Lock()
  private var current = 0
  private var deepest = 0

  var maximum: Int { lock.withLock { deepest } }

  func enter() {
    lock.withLock {
      current += 1
      deepest = max(deepest, current)
    }
  }

  func leave() {
    lock.withLock { current -= 1 }
  }
}

/// Holds a value, such as a recorder, for a closure written before the value exists.
// Sendable: `stored` is only reached under `lock`.
final class CombiningBox<Value>: @unchecked Sendable {
  private let lock = Lock()
  private var stored: Value?

  var value: Value? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
