package import Dispatch

/// The private serial queue of a future's callbacks registered without a queue (Propagate's
/// default), and the callbacks waiting on it for the result.
///
/// Every registration and the completion are blocks on `queue`, so the callbacks run in the
/// order they were registered, none of them inside the completing or registering call: a
/// registration block runs its callback if the result is already there, or keeps it until the
/// completion block runs them all.
// Sendable: `result` and `waiting` are only touched by blocks running on the serial `queue`.
@usableFromInline
package final class FutureCallbackQueue<Output, Failure: Error>: @unchecked Sendable {
  package typealias Callback = @Sendable (Result<Output, Failure>) -> Void

  package let queue = DispatchQueue(label: "StreamKit.Future.callbacks")
  private var result: Result<Output, Failure>?
  private var waiting: [Callback] = []

  package init() {}

  /// Runs `callback` on the queue with the result, once the future has completed.
  package func add(_ callback: @escaping Callback) {
    queue.async { [self] in
      if let result {
        callback(result)
      } else {
        waiting.append(callback)
      }
    }
  }

  /// Called once, after the future has completed: runs the kept callbacks on the queue.
  package func complete(_ result: Result<Output, Failure>) {
    // The value goes to callbacks that may run on another thread, as documented on `Future`.
    nonisolated(unsafe) let result = result
    queue.async { [self] in
      self.result = result
      let callbacks = waiting
      waiting = []
      for callback in callbacks { callback(result) }
    }
  }
}
