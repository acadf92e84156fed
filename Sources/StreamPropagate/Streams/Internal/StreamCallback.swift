import Dispatch
import FutureKit
import StreamCore

/// One registered callback: runs its body for each state offered to it, one state at a time and
/// in the order offered, inline, on a queue the user chose, or on its subscriber's private
/// serial queue.
///
/// - `inline` (operators, bindings and ``CallbackDelivery/synchronously``): whoever finds the
///   callback idle becomes its runner and loops until the pending states are gone; a state
///   offered meanwhile, from another thread or from inside the body, waits in `pending`.
/// - `queue`: the same, but the runner loop runs on the queue (`queue.async`).
/// - `serial` (Propagate's default): each state is its own block on the subscriber's serial
///   queue, dispatched in offer order, so the callbacks of one subscriber see each state in
///   registration order before any of them sees the next.
///
/// In every mode a stateful replay (primed by the registering thread before the callback is
/// shared) runs synchronously on the registering thread, as in Propagate; states offered while
/// it runs wait in `pending` and follow it in the callback's mode. So the body never runs twice
/// at once and never recurses.
///
/// The runner is StreamCore's `SerialDrain`, and `pending` its `RingBuffer`.
///
/// ```
/// idle --offer--> running (runs the body per pending state) --pending empty--> idle
/// ```
// Sendable: `pending`, `drain` and `ended` are guarded by `lock`; `body` is only called by the
// one runner at a time (or by the serial queue, one block at a time), outside the lock.
final class StreamCallback<T, E: Error>: @unchecked Sendable {
  /// Where the body runs.
  enum Delivery {
    /// On the offering thread.
    case inline
    /// On a queue the user chose, one runner loop at a time.
    case queue(DispatchQueue)
    /// One block per state on the subscriber's private serial queue.
    case serial(DispatchQueue)
  }

  private let lock = Lock()
  private var pending = RingBuffer<StreamState<T, E>>()
  /// Claimed by the runner (or, in `serial` mode, by the registering thread during a replay).
  private var drain = SerialDrain()
  /// Set once `.cancelled` is queued: a state another thread offers afterwards (it snapshotted
  /// the callbacks just before the cancel) is dropped, so `.cancelled` is always the last one.
  private var ended = false
  private let delivery: Delivery
  private let body: (StreamState<T, E>) -> Void

  /// - Parameters:
  ///   - delivery: Where the body runs.
  ///   - body: Called with each state.
  init(delivery: Delivery, body: @escaping (StreamState<T, E>) -> Void) {
    self.delivery = delivery
    self.body = body
  }

  /// Hands the callback a state; runs it now (or on the queue) unless a runner is active.
  func offer(_ state: StreamState<T, E>) {
    if case .serial(let queue) = delivery {
      lock.withLock {
        guard !ended else { return }
        ended = state.isCancelled
        // Dispatched under the lock, so that blocks reach the queue in offer order.
        if drain.isClaimed {
          pending.append(state)
        } else {
          dispatch(state, on: queue)
        }
      }
      return
    }
    let starts = lock.withLock { () -> Bool in
      guard !ended else { return false }
      ended = state.isCancelled
      pending.append(state)
      return drain.claim()
    }
    guard starts else { return }
    switch delivery {
    case .inline: run()
    case .queue(let queue): queue.async { self.run() }
    case .serial: break
    }
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

  /// Runs the primed replay here, synchronously, then hands whatever was offered meanwhile to
  /// the callback's mode.
  func start() {
    guard let first = lock.withLock({ pending.popFirst() }) else { return }
    body(first)
    switch delivery {
    case .inline:
      run()
    case .queue(let queue):
      let more = lock.withLock { () -> Bool in
        guard pending.isEmpty else { return true }
        drain.release()
        return false
      }
      if more { queue.async { self.run() } }
    case .serial(let queue):
      lock.withLock {
        while let state = pending.popFirst() { dispatch(state, on: queue) }
        drain.release()
      }
    }
  }

  /// Runs the body once with `state`, here; for a callback nobody else can reach (a
  /// registration on a cancelled subscriber).
  func runNow(_ state: StreamState<T, E>) {
    body(state)
  }

  /// Queues one block that runs the body with `state`.
  private func dispatch(_ state: StreamState<T, E>, on queue: DispatchQueue) {
    // Delivered to one callback, on one queue, one block at a time, as documented.
    nonisolated(unsafe) let state = state
    queue.async { self.body(state) }
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
