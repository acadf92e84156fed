public import Dispatch
import PropertyWrappers
import SignalOperators
public import StreamCore

extension Publisher {
  /// Blocks the calling thread until the first event, like Snail's `block()` and
  /// `block(timeout:)`, and returns it as a `Result`.
  ///
  /// ```swift
  /// switch loadUser.block(timeout: .seconds(5)) {
  /// case .success(let user?): show(user)
  /// case .success(nil): showEmpty()  // finished first, or timed out
  /// case .failure(let error): show(error)
  /// }
  /// ```
  ///
  /// It requests one value and returns `.success(value)` for the first value,
  /// `.failure(error)` if the publisher fails first, and `.success(nil)` if it finishes first
  /// or the timeout passes. Unlike Snail, it then cancels the subscription. A publisher that
  /// sends during `subscribe` returns without waiting.
  ///
  /// > Thread safety: Call it from a thread that the publisher does not need in order to send,
  /// > or it waits for the whole timeout (and forever without one).
  ///
  /// - Parameter timeout: How long to wait; `nil` waits until the first event.
  /// - Returns: The first value, `nil` on finish or timeout, or the failure.
  public func block(timeout: DispatchTimeInterval? = nil) -> Result<Output?, Failure> {
    let semaphore = DispatchSemaphore(value: 0)
    let waiter = SnailBlockWaiter<Output, Failure> { semaphore.signal() }
    subscribe(waiter)
    if let timeout {
      if semaphore.wait(timeout: .now() + timeout) == .timedOut { waiter.end(with: .success(nil)) }
    } else {
      semaphore.wait()
    }
    return waiter.result ?? .success(nil)
  }

  /// Blocks the calling thread until the first event or until `timeout` seconds pass, as
  /// Snail's `block(timeout:)` took it (a `TimeInterval`).
  ///
  /// ```swift
  /// let first = loadUser.block(timeout: 1)  // waits at most one second
  /// ```
  ///
  /// The same as `block(timeout:)` with the seconds as a `DispatchTimeInterval`.
  ///
  /// > Thread safety: Call it from a thread that the publisher does not need in order to send,
  /// > or it waits for the whole timeout.
  ///
  /// - Parameter timeout: How many seconds to wait; zero or less returns at once unless the
  ///   publisher sends during `subscribe`.
  /// - Returns: The first value, `nil` on finish or timeout, or the failure.
  public func block(timeout: Double) -> Result<Output?, Failure> {
    let nanoseconds = (timeout * 1_000_000_000).rounded()
    let clamped = Swift.min(Swift.max(nanoseconds, 0), Double(Int.max / 2))
    return block(timeout: .nanoseconds(Int(clamped)))
  }
}

/// The subscriber behind `block(timeout:)`: keeps the first event.
// Sendable: all mutable state is guarded by `lock`; nothing is called while it is held.
private final class SnailBlockWaiter<Input, Failure: Error>: @unchecked Sendable, Subscriber {
  private let lock = Lock()
  private var upstream: (any Subscription)?
  private var signal: (() -> Void)?
  private var storedResult: Result<Input?, Failure>?

  init(signal: @escaping () -> Void) {
    self.signal = signal
  }

  var result: Result<Input?, Failure>? { lock.withLock { storedResult } }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Bool in
      guard upstream == nil, storedResult == nil else { return false }
      upstream = subscription
      return true
    }
    guard accepted else {
      subscription.cancel()
      return
    }
    subscription.request(.max(1))
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    end(with: .success(input))
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished: end(with: .success(nil), cancelling: false)
    case .failure(let error): end(with: .failure(error), cancelling: false)
    }
  }

  /// Keeps `result` if it is the first, cancels upstream and wakes the waiting thread.
  func end(with result: Result<Input?, Failure>, cancelling: Bool = true) {
    let ended = lock.withLock { () -> ((any Subscription)?, (() -> Void)?)? in
      guard storedResult == nil else { return nil }
      storedResult = result
      return (upstream.take(), signal.take())
    }
    guard let ended else { return }
    if cancelling { ended.0?.cancel() }
    ended.1?()
  }
}
