import StreamCore
import StreamTesting

/// The error the tests fail upstreams with and throw from closures; `code` tells two apart.
///
/// It prints as `Boom`, or `Boom(<code>)` when `code` isn't 0, so that event logs read short.
struct TestError: Error, Equatable, CustomStringConvertible {
  var code = 0

  /// The error a test closure throws, distinct from the upstream's `TestError()`.
  static let thrown = TestError(code: 99)

  var description: String { code == 0 ? "Boom" : "Boom(\(code))" }
}

/// An object a test closure captures, so the test can check (through a weak reference) that the
/// operator released the closure.
final class ReleaseToken: Sendable {}

/// Holds a subscription for a closure written before the subscription exists.
// Sendable: `stored` is only reached under `lock`.
final class SubscriptionHolder: @unchecked Sendable {
  private let lock = Lock()
  private var stored: (any Subscription)?
  private var requester: ((Subscribers.Demand) -> Void)?

  /// Requests more through whatever was stored, e.g. a recorder's `request(_:)`, so that the
  /// recorder counts the demand.
  var request: ((Subscribers.Demand) -> Void)? {
    get { lock.withLock { requester } }
    set { lock.withLock { requester = newValue } }
  }

  var subscription: (any Subscription)? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// Holds a recorder for its own `demandPerValue` closure, which is written before it exists.
// Sendable: `stored` is only reached under `lock`.
final class RecorderHolder<Input, Failure: Error>: @unchecked Sendable {
  private let lock = Lock()
  private var stored: RecordingSubscriber<Input, Failure>?

  var recorder: RecordingSubscriber<Input, Failure>? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// Counts calls, from any thread.
// Sendable: `count` is only reached under `lock`.
final class CallCounter: @unchecked Sendable {
  private let lock = Lock()
  private var count = 0

  var value: Int { lock.withLock { count } }

  /// Adds one and returns the count before.
  @discardableResult
  func increment() -> Int {
    lock.withLock {
      defer { count += 1 }
      return count
    }
  }
}

/// A subscriber that keeps only a weak reference to the subscription it got, so a test can
/// check that the subscription is released.
// Sendable: `weakSubscription` and `completed` are only reached under `lock`.
final class WeakSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  private let lock = Lock()
  private weak var weakSubscription: AnyObject?
  private var completed = false
  private let demand: Subscribers.Demand

  init(demand: Subscribers.Demand = .unlimited) {
    self.demand = demand
  }

  /// The subscription, while something else keeps it alive.
  var subscription: AnyObject? { lock.withLock { weakSubscription } }

  var isCompleted: Bool { lock.withLock { completed } }

  func receive(subscription: any Subscription) {
    lock.withLock { weakSubscription = subscription as AnyObject }
    if demand > 0 { subscription.request(demand) }
  }

  func receive(_ input: Input) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<Failure>) {
    lock.withLock { completed = true }
  }

  /// Cancels the subscription if it is still alive.
  func cancel() {
    (subscription as? any Subscription)?.cancel()
  }
}

/// A subscriber for concurrency tests: records values and notes any call that overlaps
/// another one or arrives after the completion.
// Sendable: all mutable state is guarded by `lock`; nothing is called out under it.
final class ConcurrentRecorder<Input, Failure: Error>: Subscriber,
  @unchecked Sendable
{
  private let lock = Lock()
  private var inside = false
  private var received: [Input] = []
  private var finalCompletion: Subscribers.Completion<Failure>?
  private var problems: [String] = []
  private var stored: (any Subscription)?
  private let initialDemand: Subscribers.Demand
  private let demandPerValue: Subscribers.Demand

  init(initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none) {
    self.initialDemand = initialDemand
    self.demandPerValue = demandPerValue
  }

  var values: [Input] { lock.withLock { received } }
  var completion: Subscribers.Completion<Failure>? { lock.withLock { finalCompletion } }
  /// Overlapping calls and calls after the completion.
  var violations: [String] { lock.withLock { problems } }
  var subscription: (any Subscription)? { lock.withLock { stored } }

  func receive(subscription: any Subscription) {
    // A replaced subscription is released after the lock.
    var replaced: (any Subscription)? = subscription
    lock.withLock { swap(&replaced, &stored) }
    replaced = nil
    if initialDemand > 0 { subscription.request(initialDemand) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    enter("value")
    lock.withLock { received.append(input) }
    leave()
    return demandPerValue
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    enter("completion")
    let released = lock.withLock { () -> (any Subscription)? in
      finalCompletion = completion
      return stored.take()
    }
    _ = released  // the subscription is released after the lock
    leave()
  }

  private func enter(_ what: String) {
    lock.withLock {
      if inside { problems.append("overlapping \(what)") }
      if finalCompletion != nil { problems.append("\(what) after completion") }
      inside = true
    }
  }

  private func leave() {
    lock.withLock { inside = false }
  }
}
