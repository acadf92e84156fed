public import Dispatch

extension Future {
  /// Runs `callback` with the value if the future succeeds.
  ///
  /// ```swift
  /// userFuture
  ///   .onSuccess { user in greet(user) }
  ///   .onFailure { error in report(error) }
  /// ```
  ///
  /// The callback runs once, or never if the future fails. Without a queue it runs
  /// synchronously: on the thread that completes the future, or at once on this thread if the
  /// future is already complete. With a queue it always runs asynchronously on that queue.
  ///
  /// > Thread safety: May be called from any thread, also while another thread completes the
  /// > future: the callback runs exactly once either way, never under the future's lock.
  ///
  /// - Parameters:
  ///   - queue: Where to run the callback; `nil` (the default) runs it synchronously.
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
  ///   - queue: Where to run the callback; `nil` (the default) runs it synchronously.
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

  /// Runs `callback` with the result when the future completes, whichever way.
  ///
  /// ```swift
  /// request.finally { _ in spinner.stop() }
  /// ```
  ///
  /// Callbacks registered before completion run in registration order. Without a queue the
  /// callback runs synchronously, on the thread that completes the future after the future's
  /// lock is released, or at once on this thread if the future is already complete. With a
  /// queue it always runs asynchronously on that queue (`queue.async`), as Propagate did.
  ///
  /// > Thread safety: May be called from any thread, also while another thread completes the
  /// > future: the callback runs exactly once either way.
  ///
  /// - Parameters:
  ///   - queue: Where to run the callback; `nil` (the default) runs it synchronously.
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
      whenComplete(callback)
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
  ///   - queue: Where to run the callback; `nil` (the default) runs it synchronously.
  ///   - callback: Called with the result.
  /// - Returns: This future, to chain more callbacks.
  @discardableResult
  public func onComplete(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping FinallyBlock
  ) -> Future {
    finally(onQueue: queue, callback)
  }
}
