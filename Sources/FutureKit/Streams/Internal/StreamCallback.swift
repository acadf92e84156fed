import Dispatch
import StreamCore

/// One registered callback: runs its body for each state offered to it, one state at a time and
/// in the order offered, on the offering thread or on its queue.
///
/// Whoever finds the callback idle becomes its runner and loops until the pending states are
/// gone; a state offered meanwhile, from another thread or from inside the body, waits in
/// `pending`. So the body never runs twice at once and never recurses, and a stateful replay
/// (offered by the registering thread before the callback is shared) comes before anything
/// published later.
///
/// The runner is StreamCore's `SerialDrain`, and `pending` its `RingBuffer`.
///
/// ```
/// idle --offer--> running (runs the body per pending state) --pending empty--> idle
/// ```
// Sendable: `pending`, `drain` and `ended` are guarded by `lock`; `body` is only called by the
// one runner at a time, outside the lock.
final class StreamCallback<T, E: Error>: @unchecked Sendable {
  private let lock = Lock()
  private var pending = RingBuffer<StreamState<T, E>>()
  /// Claimed by the runner.
  private var drain = SerialDrain()
  /// Set once `.cancelled` is queued: a state another thread offers afterwards (it snapshotted
  /// the callbacks just before the cancel) is dropped, so `.cancelled` is always the last one.
  private var ended = false
  private let queue: DispatchQueue?
  private let body: (StreamState<T, E>) -> Void

  /// - Parameters:
  ///   - queue: Where the body runs; `nil` runs it on the offering thread.
  ///   - body: Called with each state.
  init(queue: DispatchQueue?, body: @escaping (StreamState<T, E>) -> Void) {
    self.queue = queue
    self.body = body
  }

  /// Hands the callback a state; runs it now (or on the queue) unless a runner is active.
  func offer(_ state: StreamState<T, E>) {
    let starts = lock.withLock { () -> Bool in
      guard !ended else { return false }
      ended = state.isCancelled
      pending.append(state)
      return drain.claim()
    }
    if starts { start() }
  }

  /// Queues a replay and makes the caller the runner; it must call ``start()`` after it has
  /// released its own lock. Only for a callback nobody else can reach yet.
  func prime(_ state: StreamState<T, E>) {
    lock.withLock {
      ended = state.isCancelled
      pending.append(state)
      _ = drain.claim()
    }
  }

  /// Runs the pending states, here or on the queue.
  func start() {
    if let queue {
      queue.async { self.run() }
    } else {
      run()
    }
  }

  /// The runner's loop: runs the body for each pending state until none is left.
  private func run() {
    SerialDrain.run(lock) { () -> StreamState<T, E>? in
      guard let next = pending.popFirst() else {
        drain.release()
        return nil
      }
      return next
    } perform: { state in
      body(state)
      return true
    }
  }
}
