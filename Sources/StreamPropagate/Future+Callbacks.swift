public import Dispatch
public import FutureKit
import StreamCore

extension Future {
  /// Runs `callback` with the value if the future succeeds.
  ///
  /// ```swift
  /// userFuture
  ///   .onSuccess { user in greet(user) }
  ///   .onFailure { error in report(error) }
  /// ```
  ///
  /// The callback runs once, or never if the future fails, and always asynchronously, as in
  /// Propagate: without a queue on the future's private serial queue, after the callbacks
  /// registered before it; with a queue on that queue. For synchronous delivery use
  /// ``onSuccess(_:_:)`` with ``CallbackDelivery/synchronously``.
  ///
  /// > Thread safety: May be called from any thread, also while another thread completes the
  /// > future: the callback runs exactly once either way, never under the future's lock.
  ///
  /// - Parameters:
  ///   - queue: Where to run the callback; `nil` (the default) means the future's private serial
  ///     queue.
  ///   - callback: Called with the value.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func onSuccess(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping SuccessBlock
  ) -> Future {
    finally(onQueue: queue) { result in
      if case .success(let value) = result { callback(value) }
    }
  }

  /// Runs `callback` with the value if the future succeeds, on the thread that completes it, or
  /// at once if it already has.
  ///
  /// ```swift
  /// promise.future.onSuccess(.synchronously) { cache.store($0) }
  /// promise.resolve(user)  // the callback has run
  /// ```
  ///
  /// > Thread safety: May be called from any thread; the callback runs exactly once, never under
  /// > the future's lock, on whichever thread completes the future (or this one).
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called with the value.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func onSuccess(_ delivery: CallbackDelivery, _ callback: @escaping SuccessBlock) -> Future
  {
    finally(delivery) { result in
      if case .success(let value) = result { callback(value) }
    }
  }

  /// Runs `callback` with the failure if the future fails.
  ///
  /// ```swift
  /// upload.onFailure(onQueue: .main) { error in showAlert(error) }
  /// ```
  ///
  /// The callback runs once, or never if the future succeeds; where it runs follows the same
  /// rule as ``onSuccess(onQueue:_:)``.
  ///
  /// > Thread safety: May be called from any thread; the callback runs exactly once, never under
  /// > the future's lock.
  ///
  /// - Parameters:
  ///   - queue: Where to run the callback; `nil` (the default) means the future's private serial
  ///     queue.
  ///   - callback: Called with the failure.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func onFailure(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping ErrorBlock
  ) -> Future {
    finally(onQueue: queue) { result in
      if case .failure(let error) = result { callback(error) }
    }
  }

  /// Runs `callback` with the failure if the future fails, on the thread that completes it, or
  /// at once if it already has.
  ///
  /// ```swift
  /// upload.onFailure(.synchronously) { log($0) }
  /// ```
  ///
  /// > Thread safety: As ``onSuccess(_:_:)``.
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called with the failure.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func onFailure(_ delivery: CallbackDelivery, _ callback: @escaping ErrorBlock) -> Future {
    finally(delivery) { result in
      if case .failure(let error) = result { callback(error) }
    }
  }

  /// Runs `callback` with the result when the future completes, whichever way.
  ///
  /// ```swift
  /// request.finally { _ in spinner.stop() }
  /// ```
  ///
  /// Always asynchronous, as in Propagate, even when the future is already complete: without a
  /// queue the callback runs on the future's private serial queue, where the callbacks
  /// registered without a queue run one at a time in registration order; with a queue it runs
  /// on that queue (`queue.async`). For synchronous delivery use ``finally(_:_:)`` with
  /// ``CallbackDelivery/synchronously``.
  ///
  /// > Thread safety: May be called from any thread, also while another thread completes the
  /// > future: the callback runs exactly once either way.
  ///
  /// - Parameters:
  ///   - queue: Where to run the callback; `nil` (the default) means the future's private serial
  ///     queue.
  ///   - callback: Called with the result.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func finally(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping FinallyBlock
  ) -> Future {
    if let queue {
      // The result is read back from the future on the queue: it never changes once set.
      whenComplete { [self] _ in
        queue.async { callback(self.settledResult) }
      }
    } else {
      privateCallbackQueue().add(callback)
    }
    return self
  }

  /// Runs `callback` with the result when the future completes: on the completing thread, after
  /// the future's lock is released, in registration order; or at once on this thread if the
  /// future is already complete.
  ///
  /// ```swift
  /// request.finally(.synchronously) { _ in pending -= 1 }
  /// ```
  ///
  /// > Thread safety: May be called from any thread, also while another thread completes the
  /// > future: the callback runs exactly once either way, never under the future's lock.
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called with the result.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func finally(_ delivery: CallbackDelivery, _ callback: @escaping FinallyBlock) -> Future {
    switch delivery {
    case .synchronously: whenComplete(callback)
    }
    return self
  }

  /// Runs `callback` with the result when the future completes; the name Propagate's README
  /// uses for ``finally(onQueue:_:)``.
  ///
  /// ```swift
  /// request.onComplete { result in log(result) }
  /// ```
  ///
  /// > Thread safety: As ``finally(onQueue:_:)``.
  ///
  /// - Parameters:
  ///   - queue: Where to run the callback; `nil` (the default) means the future's private serial
  ///     queue.
  ///   - callback: Called with the result.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func onComplete(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping FinallyBlock
  ) -> Future {
    finally(onQueue: queue, callback)
  }

  /// Runs `callback` with the result when the future completes, synchronously; as
  /// ``finally(_:_:)``.
  ///
  /// ```swift
  /// future.onComplete(.synchronously) { result in print(result) }
  /// ```
  ///
  /// > Thread safety: As ``finally(_:_:)``.
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called with the result.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func onComplete(_ delivery: CallbackDelivery, _ callback: @escaping FinallyBlock) -> Future
  {
    finally(delivery, callback)
  }

  /// The private serial queue of the callbacks registered without a queue; for tests, which
  /// wait on it until those callbacks have run. `nil` until the first such callback.
  package var callbackDispatchQueue: DispatchQueue? {
    lock.withLock { callbackQueue }?.queue
  }

  /// The private callback queue, made (and told about the completion) by the first callback
  /// registered without a queue.
  private func privateCallbackQueue() -> FutureCallbackQueue<Output, Failure> {
    let (callbacks, made) = lock.withLock { () -> (FutureCallbackQueue<Output, Failure>, Bool) in
      if let callbackQueue { return (callbackQueue, false) }
      let made = FutureCallbackQueue<Output, Failure>()
      callbackQueue = made
      return (made, true)
    }
    if made {
      whenComplete { result in callbacks.complete(result) }
    }
    return callbacks
  }
}
