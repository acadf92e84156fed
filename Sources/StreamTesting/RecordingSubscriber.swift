public import StreamCore

/// A subscriber that records everything it receives, requests the demand a test sets, and
/// notes where a publisher broke the subscriber contract.
///
/// ```swift
/// let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
/// [1, 2, 3].publisher.subscribe(recorder)
/// recorder.events  // [.subscription, .value(1), .value(2), .value(3), .completion(.finished)]
/// recorder.violations  // []
/// ```
///
/// - In `receive(subscription:)` it requests `initialDemand` (nothing if that is `nil` or
///   `.none`); each `receive(_:)` returns `demandPerValue`. ``request(_:)`` asks for more at any
///   time; ``cancel()`` cancels the subscription.
/// - ``events`` records every call exactly as it arrived, including calls that break the
///   contract. Those are also described in ``violations``: a value beyond the demand requested so
///   far, a second subscription (which is cancelled at once), and anything before the
///   subscription, after the completion or after ``cancel()``.
/// - After the completion or ``cancel()`` it lets go of the subscription: ``subscription`` is then
///   `nil`, while ``subscriptionDescription`` keeps the description. A subscription that arrives
///   after ``cancel()`` is cancelled at once.
///
/// > Thread safety: Every method may be called from any thread. No lock is held while the
/// > subscription or `demandPerValue` is called, so they may call back into the recorder.
// Sendable: all mutable state is guarded by `lock`; the subscription and `demandPerValue` are
// called outside it, and the publisher calls `demandPerValue` for one value at a time.
public final class RecordingSubscriber<Input, Failure: Error>: Subscriber, Cancellable,
  @unchecked Sendable
{
  /// One call the recorder received.
  ///
  /// ```swift
  /// #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  /// ```
  ///
  /// > Thread safety: A value type; it is `Sendable` when `Input` is.
  public enum Event {
    /// `receive(subscription:)`; see ``RecordingSubscriber/subscriptionDescription``.
    case subscription

    /// `receive(_:)` with this value.
    case value(Input)

    /// `receive(completion:)` with this completion.
    case completion(Subscribers.Completion<Failure>)
  }

  /// ```
  /// awaitingSubscription --receive(subscription:)--> subscribed
  /// awaitingSubscription / subscribed --receive(completion:)--> completed
  /// awaitingSubscription / subscribed --cancel()--> cancelled
  /// ```
  private enum Phase {
    case awaitingSubscription
    case subscribed(any Subscription)
    case completed
    case cancelled
  }

  private enum SubscriptionAction {
    case request(Subscribers.Demand)
    case cancel
    case nothing
  }

  private enum Violation {
    case secondSubscription(any Subscription)
    case subscriptionAfterCompletion
    case value(Input, ValueProblem)
    case completion(Subscribers.Completion<Failure>, CompletionProblem)
  }

  private enum ValueProblem {
    case beforeSubscription
    case afterCompletion
    case afterCancel
    case noDemand
  }

  private enum CompletionProblem {
    case beforeSubscription
    case afterCompletion
    case afterCancel
  }

  private let lock = Lock()
  private var phase = Phase.awaitingSubscription
  /// The thread inside ``cancel()``, while it calls the subscription's `cancel()`.
  private var cancellingThread: ThreadID?
  private var recordedEvents: [Event] = []
  private var recordedViolations: [String] = []
  private var firstSubscriptionDescription: String?
  /// The demand requested so far minus the values received: what the publisher may still send.
  private var demand = Subscribers.Demand.none
  private let initialDemand: Subscribers.Demand?
  private let demandPerValue: (Input) -> Subscribers.Demand

  /// Creates a recorder that returns the same demand for every value.
  ///
  /// ```swift
  /// let oneAtATime = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
  /// ```
  ///
  /// - Parameters:
  ///   - initialDemand: Requested when the subscription arrives; `nil` or `.none` requests
  ///     nothing, so the test calls ``request(_:)``.
  ///   - demandPerValue: Returned from each `receive(_:)`.
  public convenience init(
    initialDemand: Subscribers.Demand? = .unlimited,
    demandPerValue: Subscribers.Demand = .none
  ) {
    self.init(initialDemand: initialDemand) { _ in demandPerValue }
  }

  /// Creates a recorder that decides the demand to return for each value.
  ///
  /// ```swift
  /// let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1)) { value in
  ///   value < 3 ? .max(1) : .none
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - initialDemand: Requested when the subscription arrives; `nil` or `.none` requests
  ///     nothing, so the test calls ``request(_:)``.
  ///   - demandPerValue: Called (outside the recorder's lock) with each value; its result is
  ///     returned from `receive(_:)`.
  public init(
    initialDemand: Subscribers.Demand? = .unlimited,
    demandPerValue: @escaping (Input) -> Subscribers.Demand
  ) {
    self.initialDemand = initialDemand
    self.demandPerValue = demandPerValue
  }

  /// Every call received, in order.
  public var events: [Event] {
    lock.withLock { recordedEvents }
  }

  /// The values received, in order.
  public var values: [Input] {
    events.compactMap { event in
      if case .value(let value) = event { value } else { nil }
    }
  }

  /// The first completion received, or `nil` if none has arrived.
  public var completion: Subscribers.Completion<Failure>? {
    events.lazy.compactMap { event in
      if case .completion(let completion) = event { completion } else { nil }
    }.first
  }

  /// The subscription, from its arrival until the completion or ``cancel()``; otherwise `nil`.
  public var subscription: (any Subscription)? {
    lock.withLock {
      if case .subscribed(let subscription) = phase { subscription } else { nil }
    }
  }

  /// The description of the first subscription received, such as `"TestPublisher"` or
  /// `"PassthroughSubject"`; kept after the completion and after ``cancel()``.
  public var subscriptionDescription: String? {
    lock.withLock { firstSubscriptionDescription }
  }

  /// Where the publisher broke the subscriber contract, in order, such as
  /// `"received 3 while demand was none"` or `"received finished after completion"`.
  ///
  /// ```swift
  /// #expect(recorder.violations.isEmpty)
  /// ```
  public var violations: [String] {
    lock.withLock { recordedViolations }
  }

  /// Records the subscription and requests `initialDemand`; cancels a second subscription.
  ///
  /// - Parameter subscription: The subscription to record.
  public func receive(subscription: any Subscription) {
    let text = String(describing: subscription)
    var violation: Violation?
    let action = lock.withLock { () -> SubscriptionAction in
      recordedEvents.append(.subscription)
      let isFirst = firstSubscriptionDescription == nil
      if isFirst { firstSubscriptionDescription = text }
      switch phase {
      case .awaitingSubscription:
        phase = .subscribed(subscription)
        guard let initialDemand, initialDemand > .none else { return .nothing }
        demand += initialDemand
        return .request(initialDemand)
      case .subscribed:
        violation = .secondSubscription(subscription)
      case .completed:
        violation = isFirst ? .subscriptionAfterCompletion : .secondSubscription(subscription)
      case .cancelled:
        violation = isFirst ? nil : .secondSubscription(subscription)
      }
      return .cancel
    }
    if let violation { record(violation) }
    switch action {
    case .request(let demand): subscription.request(demand)
    case .cancel: subscription.cancel()
    case .nothing: break
    }
  }

  /// Records the value and returns `demandPerValue`.
  ///
  /// - Parameter input: The value to record.
  /// - Returns: The demand `demandPerValue` gives for `input`.
  public func receive(_ input: Input) -> Subscribers.Demand {
    let problem = lock.withLock { () -> ValueProblem? in
      recordedEvents.append(.value(input))
      switch phase {
      case .awaitingSubscription:
        return .beforeSubscription
      case .completed:
        return .afterCompletion
      case .cancelled:
        return isInFlight ? nil : .afterCancel
      case .subscribed:
        guard demand > .none else { return .noDemand }
        demand -= 1
        return nil
      }
    }
    if let problem { record(.value(input, problem)) }
    let more = demandPerValue(input)
    if more > .none {
      lock.withLock {
        if case .subscribed = phase { demand += more }
      }
    }
    return more
  }

  /// Records the completion and lets go of the subscription.
  ///
  /// - Parameter completion: The completion to record.
  public func receive(completion: Subscribers.Completion<Failure>) {
    var released: (any Subscription)?
    let problem = lock.withLock { () -> CompletionProblem? in
      recordedEvents.append(.completion(completion))
      switch phase {
      case .awaitingSubscription:
        phase = .completed
        return .beforeSubscription
      case .subscribed(let subscription):
        released = subscription
        phase = .completed
        return nil
      case .completed:
        return .afterCompletion
      case .cancelled:
        return isInFlight ? nil : .afterCancel
      }
    }
    if let problem { record(.completion(completion, problem)) }
    _ = released
  }

  /// Requests `demand` more values from the subscription; does nothing before the subscription
  /// arrives or after the completion or ``cancel()``.
  ///
  /// ```swift
  /// let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
  /// subject.subscribe(recorder)
  /// recorder.request(.max(2))
  /// ```
  ///
  /// - Parameter demand: How many more values to request; must be greater than zero.
  public func request(_ demand: Subscribers.Demand) {
    let target = lock.withLock { () -> (any Subscription)? in
      guard case .subscribed(let subscription) = phase else { return nil }
      self.demand += demand  // before the call: a synchronous publisher sends from inside it
      return subscription
    }
    target?.request(demand)
  }

  /// Cancels the subscription, or the one that arrives later, and lets go of it. Idempotent.
  ///
  /// An event that another thread delivers while this call is still cancelling the subscription
  /// was already on its way, which StreamCore's contract allows; it is recorded but not counted
  /// as a violation. Anything after `cancel()` returns, or delivered on the cancelling thread
  /// itself, is a violation.
  public func cancel() {
    let target = lock.withLock { () -> (any Subscription)? in
      switch phase {
      case .awaitingSubscription:
        phase = .cancelled
        return nil
      case .subscribed(let subscription):
        phase = .cancelled
        cancellingThread = ThreadID.current
        return subscription
      case .completed, .cancelled:
        return nil
      }
    }
    guard let target else { return }
    target.cancel()
    lock.withLock { cancellingThread = nil }
  }

  /// Whether an event arriving now, after ``cancel()`` began, was already on its way: another
  /// thread is still inside `cancel()`. Call under `lock`.
  private var isInFlight: Bool {
    guard let cancellingThread else { return false }
    return cancellingThread != ThreadID.current
  }

  private func record(_ violation: Violation) {
    let text: String
    switch violation {
    case .secondSubscription(let subscription):
      text = "received a second subscription: \(subscription)"
    case .subscriptionAfterCompletion:
      text = "received a subscription after completion"
    case .value(let input, .beforeSubscription):
      text = "received \(input) before a subscription"
    case .value(let input, .afterCompletion):
      text = "received \(input) after completion"
    case .value(let input, .afterCancel):
      text = "received \(input) after cancel"
    case .value(let input, .noDemand):
      text = "received \(input) while demand was none"
    case .completion(let completion, .beforeSubscription):
      text = "received \(completion) before a subscription"
    case .completion(let completion, .afterCompletion):
      text = "received \(completion) after completion"
    case .completion(let completion, .afterCancel):
      text = "received \(completion) after cancel"
    }
    lock.withLock { recordedViolations.append(text) }
  }
}

extension RecordingSubscriber.Event: Equatable where Input: Equatable, Failure: Equatable {}

extension RecordingSubscriber.Event: Sendable where Input: Sendable, Failure: Sendable {}
