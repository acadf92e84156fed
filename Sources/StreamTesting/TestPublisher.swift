public import StreamCore

/// A publisher that a test sends into by hand, and that records what its subscribers ask of it.
///
/// ```swift
/// let upstream = TestPublisher<Int, Never>()
/// let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
/// upstream.subscribe(recorder)
/// upstream.send(1)                  // delivered
/// upstream.send(2)                  // not delivered: no demand left
/// upstream.requests                 // [.demand(.max(1))]
/// upstream.violations               // ["sent 2 while demand was none"]
/// ```
///
/// Use it as the upstream of the operator under test: ``requests`` shows the demand the operator
/// asked for and when it cancelled, and ``violations`` shows where the test sent more than it
/// asked for.
///
/// - Each subscriber gets its own subscription, described as `"TestPublisher"`, with its own
///   outstanding demand. ``send(_:)`` delivers to every subscriber that has demand. For a
///   subscriber without demand the value is not delivered (nor kept), and ``violations`` records
///   `"sent <value> while demand was none"`.
/// - ``requests`` lists every `request(_:)` and `cancel()` call from every subscription, in
///   order, including repeated cancels and calls after the completion. Demand a subscriber
///   returns from `receive(_:)` is added to its outstanding demand (see ``outstandingDemand``)
///   but is not a request, so it is not listed.
/// - `request(.none)` does not trap (some of Combine's publishers do): it is listed in
///   ``requests`` and recorded in ``violations`` as `"request(.none)"`, so that a test can check
///   for it.
/// - ``send(completion:)`` completes every current subscriber once; later values and completions
///   are ignored. A subscriber that arrives afterwards receives a subscription and the
///   completion at once. Values sent to a subscription after it was cancelled are ignored, and
///   are not violations.
///
/// > Thread safety: Every method may be called from any thread. Delivery is synchronous, on the
/// > sending thread, as with StreamCore's subjects: a subscriber may call back into the
/// > publisher or its subscription (a send from inside it is delivered re-entrantly), and a
/// > value sent from another thread while the subscriber is busy takes its demand at once and
/// > waits for the subscriber to return, so it is never called from two threads at once.
// Sendable: all mutable state is guarded by `lock`; subscribers are called outside it.
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
  /// A call a subscriber made on its subscription.
  ///
  /// ```swift
  /// #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1)), .cancel])
  /// ```
  ///
  /// > Thread safety: A value type; use it from any thread.
  public enum Request: Hashable, Sendable {
    /// `request(_:)` with this demand.
    case demand(Subscribers.Demand)

    /// `cancel()`.
    case cancel
  }

  private let lock = Lock()
  private var conduits: [any TestConduit<Output, Failure>] = []
  private var completion: Subscribers.Completion<Failure>?
  private var recordedRequests: [Request] = []
  private var recordedViolations: [String] = []
  private var subscriberCount = 0

  /// Creates a publisher with no subscribers.
  public init() {}

  /// Every `request(_:)` and `cancel()` call made on this publisher's subscriptions, in order.
  public var requests: [Request] {
    lock.withLock { recordedRequests }
  }

  /// What went against the demand contract, in order: values sent beyond a subscriber's demand,
  /// and `request(.none)` calls.
  ///
  /// ```swift
  /// #expect(upstream.violations.isEmpty)
  /// ```
  public var violations: [String] {
    lock.withLock { recordedViolations }
  }

  /// How many subscribers have subscribed so far, including those that have since cancelled or
  /// been completed.
  public var subscriptionCount: Int {
    lock.withLock { subscriberCount }
  }

  /// The demand outstanding, summed over the subscriptions that are neither cancelled nor
  /// completed.
  ///
  /// ```swift
  /// let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
  /// upstream.subscribe(recorder)
  /// upstream.send(1)
  /// upstream.outstandingDemand  // .max(1)
  /// ```
  public var outstandingDemand: Subscribers.Demand {
    let current = lock.withLock { conduits }
    return current.reduce(.none) { $0 + $1.outstandingDemand }
  }

  /// Sends `value` to every subscriber that has demand for it.
  ///
  /// For each subscriber without demand, the value is dropped and ``violations`` records
  /// `"sent <value> while demand was none"`. After the completion, does nothing.
  ///
  /// - Parameter value: The value to send.
  public func send(_ value: Output) {
    let targets = lock.withLock { completion == nil ? conduits : [] }
    var starved = 0
    for target in targets where !target.offer(value) {
      starved += 1
    }
    guard starved > 0 else { return }
    let violation = "sent \(value) while demand was none"
    lock.withLock {
      recordedViolations.append(contentsOf: repeatElement(violation, count: starved))
    }
  }

  /// Completes every current subscriber; later values and completions are ignored.
  ///
  /// - Parameter completion: How the publisher ends.
  public func send(completion: Subscribers.Completion<Failure>) {
    let targets = lock.withLock { () -> [any TestConduit<Output, Failure>] in
      guard self.completion == nil else { return [] }
      self.completion = completion
      defer { conduits = [] }
      return conduits
    }
    for target in targets {
      target.finish(completion)
    }
  }

  /// Hands `subscriber` a subscription described as `"TestPublisher"`.
  ///
  /// - Parameter subscriber: The subscriber to attach.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let inner = Inner(publisher: self, downstream: subscriber)
    let finished = lock.withLock { () -> Subscribers.Completion<Failure>? in
      subscriberCount += 1
      if let completion { return completion }
      conduits.append(inner)
      return nil
    }
    inner.start(subscriber)
    if let finished {
      inner.finish(finished)
    }
  }

  private func record(_ request: Request) {
    lock.withLock {
      recordedRequests.append(request)
      if request == .demand(.none) {
        recordedViolations.append("request(.none)")
      }
    }
  }

  private func remove(_ conduit: any TestConduit<Output, Failure>) {
    let removed = lock.withLock { () -> [any TestConduit<Output, Failure>] in
      let removed = conduits.filter { $0 === conduit }
      conduits.removeAll { $0 === conduit }
      return removed
    }
    _ = removed  // released after the lock
  }
}

/// The publisher's view of one subscription, whatever the subscriber's type.
private protocol TestConduit<Output, Failure>: AnyObject, Sendable {
  associatedtype Output
  associatedtype Failure: Error

  var outstandingDemand: Subscribers.Demand { get }

  /// Takes one demand and delivers `value` on this thread.
  ///
  /// - Returns: `false` if the subscriber had no demand, so the value was dropped.
  func offer(_ value: Output) -> Bool

  /// Delivers the completion on this thread, once the subscriber is free.
  func finish(_ completion: Subscribers.Completion<Failure>)
}

extension TestPublisher {
  /// One subscriber's subscription, with a subject's delivery rules (StreamCore's
  /// `SubjectConduit`): a value takes one demand when it is sent, and is delivered on the
  /// sending thread through the subscription's `DeliveryGate`, at once from inside the
  /// subscriber, after the subscriber returns from another thread; the completion passes the
  /// gate too, and a value that reaches the gate after the completion is dropped.
  ///
  /// ```
  /// open --cancel() / completion--> terminal (downstream released)
  /// ```
  // Sendable: all mutable state is guarded by `lock`; downstream is called outside it, holding
  // `gate`.
  private final class Inner<Downstream: Subscriber>: TestConduit, @unchecked Sendable,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    private let lock = Lock()
    private let gate = DeliveryGate()
    private weak let publisher: TestPublisher?
    /// `nil` once terminal.
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    /// Whether the completion has ended the subscription (`downstream` is also `nil` after a
    /// cancel, which lets a value already taken through).
    private var finished = false

    init(publisher: TestPublisher, downstream: Downstream) {
      self.publisher = publisher
      self.downstream = downstream
    }

    var description: String { "TestPublisher" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }

    var outstandingDemand: Subscribers.Demand {
      lock.withLock { downstream == nil ? .none : demand }
    }

    /// Hands the subscription over.
    func start(_ subscriber: Downstream) {
      subscriber.receive(subscription: self)
    }

    func request(_ demand: Subscribers.Demand) {
      publisher?.record(.demand(demand))
      lock.withLock {
        if downstream != nil { self.demand += demand }
      }
    }

    func cancel() {
      publisher?.record(.cancel)
      let released = lock.withLock { downstream.take() }
      guard released != nil else { return }
      publisher?.remove(self)
    }

    func offer(_ value: Output) -> Bool {
      let taken = lock.withLock { () -> Downstream?? in
        guard let downstream else { return .some(nil) }
        guard demand > .none else { return nil }
        demand -= 1
        return downstream
      }
      guard let taken else { return false }
      guard let downstream = taken else { return true }
      gate.pass(as: .current) {
        guard !lock.withLock({ finished }) else { return }
        let more = downstream.receive(value)
        if more > .none {
          lock.withLock {
            if self.downstream != nil { demand += more }
          }
        }
      }
      return true
    }

    func finish(_ completion: Subscribers.Completion<Failure>) {
      let taken = lock.withLock { () -> Downstream? in
        finished = true
        return downstream.take()
      }
      guard let taken else { return }
      gate.pass(as: .current) { taken.receive(completion: completion) }
    }
  }
}
