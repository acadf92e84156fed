public import Dispatch
import FutureKit
import SignalOperators
public import StreamCore

/// Why ``StreamCore/Publisher/waitForValue(timeout:deliveredOn:)`` or
/// ``StreamCore/Publisher/singleValue()`` gave no value.
///
/// ```swift
/// do {
///   let user = try loadUser.waitForValue(timeout: .seconds(2))
/// } catch .timedOut {
///   showSpinner()
/// } catch {
///   report(error)
/// }
/// ```
///
/// > Thread safety: A `Sendable` error value, thrown on the thread that waited.
public enum WaitError<Failure: Error>: Error {
  /// The publisher failed with this error.
  case failure(Failure)

  /// The publisher finished without a value.
  case empty

  /// The publisher sent a second value; the subscription was cancelled.
  case moreThanOneValue

  /// The publisher had not finished when the timeout expired; the subscription was cancelled.
  case timedOut

  /// The wait was called on the queue the publisher delivers on, where it would deadlock.
  /// Nothing was subscribed.
  case calledOnDeliveryQueue

  /// The waiting task was cancelled; the subscription was cancelled.
  case cancelled
}

extension WaitError: Equatable where Failure: Equatable {}

extension Publisher {
  /// Blocks the calling thread until the publisher sends one value and finishes, and returns it.
  ///
  /// This replaces Conbini's `await` property, whose name is a keyword in Swift 6.
  ///
  /// ```swift
  /// let config = try loadConfig.waitForValue(timeout: .seconds(5), deliveredOn: ioQueue)
  /// ```
  ///
  /// It subscribes, requests `.unlimited` and waits on a `DispatchSemaphore` (no polling) until
  /// the publisher finishes. Unlike Conbini, which crashes or hangs, it throws:
  /// - ``WaitError/failure(_:)`` when the publisher fails, even after a value;
  /// - ``WaitError/empty`` when it finishes without a value;
  /// - ``WaitError/moreThanOneValue`` as soon as a second value arrives (it then cancels);
  /// - ``WaitError/timedOut`` when `timeout` passes first (it then cancels);
  /// - ``WaitError/calledOnDeliveryQueue`` when `deliveredOn` is given and the caller is running
  ///   on that queue, or on a queue that targets it. This is detected with a queue-specific key
  ///   set on `deliveredOn` for the length of the call, before anything is subscribed. Nothing
  ///   else is detected: a publisher that delivers on a queue you don't name, such as the main
  ///   queue when you are on it and pass `nil`, still blocks until the timeout.
  ///
  /// A publisher that delivers synchronously during `subscribe` returns without blocking.
  ///
  /// > Thread safety: May be called from any thread that the publisher does not need in order
  /// > to deliver. The publisher may deliver from any thread.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait for the publisher to finish.
  ///   - queue: The queue the publisher delivers on, if any; waiting on it is refused.
  /// - Returns: The single value.
  /// - Throws: A ``WaitError`` that says why there is no value.
  public func waitForValue(
    timeout: DispatchTimeInterval,
    deliveredOn queue: DispatchQueue? = nil
  ) throws(WaitError<Failure>) -> Output {
    if let queue {
      let key = DispatchSpecificKey<UInt8>()
      queue.setSpecific(key: key, value: 1)
      let onQueue = DispatchQueue.getSpecific(key: key) != nil
      queue.setSpecific(key: key, value: nil)
      if onQueue { throw .calledOnDeliveryQueue }
    }
    let semaphore = DispatchSemaphore(value: 0)
    let waiter = SingleValueWaiter<Output, Failure> { semaphore.signal() }
    subscribe(waiter)
    if semaphore.wait(timeout: .now() + timeout) == .timedOut {
      waiter.end(with: .failure(.timedOut))
    }
    return try waiter.result().get()
  }
}

extension Publisher where Output: Sendable {
  /// Waits, without blocking a thread, until the publisher sends one value and finishes.
  ///
  /// The `async` counterpart of ``waitForValue(timeout:deliveredOn:)``.
  ///
  /// ```swift
  /// let config = try await loadConfig.singleValue()
  /// ```
  ///
  /// It requests `.unlimited` and throws ``WaitError/failure(_:)``, ``WaitError/empty`` or
  /// ``WaitError/moreThanOneValue`` as the blocking form does. It has no timeout and needs no
  /// queue check; cancelling the task cancels the subscription and throws
  /// ``WaitError/cancelled``.
  ///
  /// > Thread safety: May be called from any task. The publisher may deliver from any thread.
  ///
  /// - Returns: The single value.
  /// - Throws: A ``WaitError`` that says why there is no value.
  public func singleValue() async throws(WaitError<Failure>) -> Output {
    let waiter = SingleValueWaiter<Output, Failure>()
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<SendableResult, Never>) in
        waiter.setOnEnd { result in continuation.resume(returning: SendableResult(result)) }
        subscribe(waiter)
      }
    } onCancel: {
      waiter.end(with: .failure(.cancelled))
    }
    return try result.value.get()
  }
}

/// Carries a result across the continuation, whose value type must be `Sendable`.
// Sendable: the result is created once by the waiter and read once by the awaiting task.
private struct SendableResult<Output, Failure: Error>: @unchecked Sendable {
  let value: Result<Output, WaitError<Failure>>
  init(_ value: Result<Output, WaitError<Failure>>) { self.value = value }
}

/// The subscriber behind ``StreamCore/Publisher/waitForValue(timeout:deliveredOn:)`` and
/// ``StreamCore/Publisher/singleValue()``: keeps the first value and ends once.
// Sendable: all mutable state is guarded by `lock`; `onEnd` runs once, outside it.
private final class SingleValueWaiter<Input, Failure: Error>: Subscriber, Cancellable,
  @unchecked Sendable
{
  private let lock = Lock()
  private var subscription: (any Subscription)?
  private var value: Input?
  private var outcome: Result<Input, WaitError<Failure>>?
  private var onEnd: ((Result<Input, WaitError<Failure>>) -> Void)?

  init(onEnd: (() -> Void)? = nil) {
    if let onEnd { self.onEnd = { _ in onEnd() } }
  }

  /// Sets what to run at the end; runs it at once if the waiter has already ended.
  func setOnEnd(_ body: @escaping (Result<Input, WaitError<Failure>>) -> Void) {
    var replaced: ((Result<Input, WaitError<Failure>>) -> Void)? = body
    let ended = lock.withLock { () -> Result<Input, WaitError<Failure>>? in
      if outcome == nil { swap(&replaced, &onEnd) }
      return outcome
    }
    replaced = nil  // the closure replaced (or not kept) is released after the lock
    if let ended { body(ended) }
  }

  /// The outcome; only read after the end was signalled.
  func result() -> Result<Input, WaitError<Failure>> {
    lock.withLock { outcome } ?? .failure(.timedOut)
  }

  /// Ends the wait with `result` and cancels the subscription, unless already ended.
  func end(with result: Result<Input, WaitError<Failure>>) {
    let (subscription, handler) = finish(result)
    subscription?.cancel()
    handler?(result)
  }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Bool in
      guard self.subscription == nil, outcome == nil else { return false }
      self.subscription = subscription
      return true
    }
    if accepted {
      subscription.request(.unlimited)
    } else {
      subscription.cancel()
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let isSecond = lock.withLock { () -> Bool in
      guard outcome == nil else { return false }
      if value != nil { return true }
      value = input
      return false
    }
    if isSecond { end(with: .failure(.moreThanOneValue)) }
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let kept = lock.withLock { value }
    let result: Result<Input, WaitError<Failure>>
    switch completion {
    case .failure(let error): result = .failure(.failure(error))
    case .finished: result = kept.map { .success($0) } ?? .failure(.empty)
    }
    let (_, handler) = finish(result)
    handler?(result)
  }

  func cancel() {
    end(with: .failure(.cancelled))
  }

  /// Records the outcome once, and hands back the subscription and end handler to call.
  private func finish(
    _ result: Result<Input, WaitError<Failure>>
  ) -> ((any Subscription)?, ((Result<Input, WaitError<Failure>>) -> Void)?) {
    // The value kept is released after the lock, with the subscription and the handler.
    let taken = lock.withLock {
      () -> ((any Subscription)?, ((Result<Input, WaitError<Failure>>) -> Void)?, Input?) in
      guard outcome == nil else { return (nil, nil, nil) }
      outcome = result
      defer {
        subscription = nil
        onEnd = nil
      }
      return (subscription, onEnd, value.take())
    }
    return (taken.0, taken.1)
  }
}

extension Publisher {
  /// Conbini's blocking wait for a single value, which is
  /// ``StreamCore/Publisher/waitForValue(timeout:deliveredOn:)``
  /// here: a compile error that says what to write.
  ///
  /// ```swift
  /// let count = try [1, 2, 3].publisher.count().waitForValue(timeout: .seconds(1))
  /// ```
  @available(
    *,
    unavailable,
    message:
      "Conbini's `await` is `try waitForValue(timeout:)` here (or `try await singleValue()` in async code); it throws instead of crashing"
  )
  public var `await`: Output { fatalError("unavailable") }
}
