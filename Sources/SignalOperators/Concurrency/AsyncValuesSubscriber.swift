internal import StreamCore

/// Hands a value from the publisher's thread to the awaiting task.
///
/// The value is moved exactly once, from the subscriber's storage into the continuation, and
/// nothing else keeps a reference to it, so no two threads ever use it at the same time.
// Sendable: the wrapped value changes hands once and is never shared (see above).
struct AsyncValuesTransfer<Value>: @unchecked Sendable {
  let value: Value
}

/// The subscriber behind `AsyncPublisher` and `AsyncThrowingPublisher`: a queue between the
/// publisher's calls and one awaiting task.
///
/// ```
/// idle --next() with nothing buffered--> waiting   (demand-driven: request(.max(1)))
/// waiting --value / completion / cancel--> idle     (the continuation is resumed)
/// any --completion--> ended (buffered values are still read, then the completion)
/// any --cancel()--> cancelled (next() returns nil)
/// ```
// Sendable: all mutable state is guarded by `lock`; the subscription, the continuation and the
// upstream are called after the lock is released.
final class AsyncValuesSubscriber<Input, Failure: Error>: @unchecked Sendable, Subscriber,
  CustomStringConvertible
{
  typealias Element = AsyncValuesTransfer<Result<Input, Failure>?>

  private enum SubscriptionAction { case cancel, requestUnlimited, requestOne, none }

  private enum NextAction {
    case resume(Element)
    case request(any Subscription)
    case wait
  }

  private let lock = Lock()
  private var subscription: (any Subscription)?
  /// A value is moved out of its slot (leaving `nil`) when it is read or dropped, so
  /// compacting never releases a value under the lock.
  private var buffer = RingBuffer<Input>()
  private var completion: Subscribers.Completion<Failure>?
  private var completionDelivered = false
  private var waiter: CheckedContinuation<Element, Never>?
  private var cancelled = false
  private var demandRequested = false

  /// `nil`: request one value per `next()`, as Combine does.
  private let policy: AsyncBufferingPolicy?

  init(policy: AsyncBufferingPolicy?) {
    if case .bufferingOldest(let limit) = policy {
      precondition(limit > 0, "values(bufferingPolicy:): the limit must be positive, got \(limit)")
    }
    if case .bufferingNewest(let limit) = policy {
      precondition(limit > 0, "values(bufferingPolicy:): the limit must be positive, got \(limit)")
    }
    self.policy = policy
  }

  var description: String { policy == nil ? "AsyncPublisher" : "AsyncPublisher.Buffered" }

  func receive(subscription: any Subscription) {
    let action = lock.withLock { () -> SubscriptionAction in
      guard self.subscription == nil, completion == nil, !cancelled else { return .cancel }
      self.subscription = subscription
      if policy != nil { return .requestUnlimited }
      if waiter != nil {
        demandRequested = true
        return .requestOne
      }
      return .none
    }
    switch action {
    case .cancel: subscription.cancel()
    case .requestUnlimited: subscription.request(.unlimited)
    case .requestOne: subscription.request(.max(1))
    case .none: break
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    var dropped: Input?  // a value the buffering policy drops, released after the lock
    let resumed = lock.withLock { () -> CheckedContinuation<Element, Never>? in
      guard subscription != nil, completion == nil else { return nil }
      demandRequested = false
      if let waiter = waiter.take() { return waiter }
      dropped = append(input)
      return nil
    }
    _ = dropped
    resumed?.resume(returning: AsyncValuesTransfer(value: .success(input)))
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let (resumed, released) = lock.withLock {
      () -> (CheckedContinuation<Element, Never>?, (any Subscription)?) in
      guard self.completion == nil, !cancelled else { return (nil, nil) }
      self.completion = completion
      let released = subscription.take()
      guard let waiter = waiter.take() else { return (nil, released) }
      completionDelivered = true
      return (waiter, released)
    }
    withExtendedLifetime(released) {}
    resumed?.resume(returning: AsyncValuesTransfer(value: Self.result(of: completion)))
  }

  /// The next value, `nil` at the end, or the failure once.
  func next(
    isolation actor: isolated (any Actor)? = #isolation
  ) async -> Result<Input, Failure>? {
    await withTaskCancellationHandler {
      await withCheckedContinuation(isolation: actor) { continuation in
        let action = lock.withLock { () -> NextAction in
          if cancelled { return .resume(AsyncValuesTransfer(value: nil)) }
          if let value = popFirst() { return .resume(AsyncValuesTransfer(value: .success(value))) }
          if let completion {
            if completionDelivered { return .resume(AsyncValuesTransfer(value: nil)) }
            completionDelivered = true
            return .resume(AsyncValuesTransfer(value: Self.result(of: completion)))
          }
          precondition(waiter == nil, "AsyncPublisher: next() called while another is waiting")
          waiter = continuation
          if policy == nil, !demandRequested, let subscription {
            demandRequested = true
            return .request(subscription)
          }
          return .wait
        }
        switch action {
        case .resume(let element): continuation.resume(returning: element)
        case .request(let subscription): subscription.request(.max(1))
        case .wait: break
        }
      }.value
    } onCancel: {
      cancel()
    }
  }

  /// Stops: cancels the subscription, and the waiting `next()` returns `nil`.
  func cancel() {
    var discarded = RingBuffer<Input>()  // the buffered values, released after the lock
    let (resumed, released) = lock.withLock {
      () -> (CheckedContinuation<Element, Never>?, (any Subscription)?) in
      guard !cancelled else { return (nil, nil) }
      cancelled = true
      discarded = buffer.takeAll()
      return (waiter.take(), subscription.take())
    }
    _ = discarded
    released?.cancel()
    resumed?.resume(returning: AsyncValuesTransfer(value: nil))
  }

  private static func result(
    of completion: Subscribers.Completion<Failure>
  ) -> Result<
    Input, Failure
  >? {
    switch completion {
    case .finished: nil
    case .failure(let error): .failure(error)
    }
  }

  /// Buffers `input` by the policy. Call with the lock held.
  ///
  /// - Returns: The oldest value, if the policy dropped it for this one, to be released after
  ///   the lock.
  private func append(_ input: Input) -> Input? {
    let count = buffer.count
    var dropped: Input?
    switch policy {
    case .bufferingOldest(let limit) where count >= limit:
      return nil
    case .bufferingNewest(let limit) where count >= limit:
      dropped = buffer.popFirst()
    default:
      break
    }
    buffer.append(input)
    return dropped
  }

  /// Removes and returns the oldest buffered value. Call with the lock held.
  private func popFirst() -> Input? {
    buffer.popFirst()
  }
}

/// Cancels the subscriber when the iterator that owns it goes away, so an abandoned loop
/// releases its upstream.
// Sendable: only holds the subscriber, which is Sendable.
final class AsyncValuesLifetime<Input, Failure: Error>: Sendable {
  let subscriber: AsyncValuesSubscriber<Input, Failure>

  init(_ subscriber: AsyncValuesSubscriber<Input, Failure>) {
    self.subscriber = subscriber
  }

  deinit {
    subscriber.cancel()
  }
}
