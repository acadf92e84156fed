import Dispatch
import FutureKit
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

/// The error the deferred publishers' tests fail and throw with; `code` tells two apart.
struct TestError: Error, Equatable {
  var code = 0
}

/// The failure the future tests use.
enum FutureTestError: Error, Equatable {
  case first
  case second
  case third
}

/// An operation a Task-backed future runs in the future tests: it waits until the test opens it
/// or its task is cancelled, and lets the test wait until it has started waiting.
final class FutureTestGate: Sendable {
  private struct State {
    var waiting: CheckedContinuation<Int, any Error>?
    var outcome: Result<Int, any Error>?
    var entered = false
    var enteredWaiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = LockedState(State())

  /// Called by the operation: returns the value the test opens the gate with, or throws
  /// `CancellationError` when the task is cancelled.
  func pass() async throws -> Int {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let (outcome, entered) = state.withLock {
          state -> (Result<Int, any Error>?, [CheckedContinuation<Void, Never>]) in
          state.entered = true
          defer { state.enteredWaiters = [] }
          if state.outcome == nil { state.waiting = continuation }
          return (state.outcome, state.enteredWaiters)
        }
        for waiter in entered { waiter.resume() }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      settle(.failure(CancellationError()))
    }
  }

  /// Waits until the operation is inside ``pass()``.
  func entered() async {
    await withCheckedContinuation { continuation in
      let already = state.withLock { state -> Bool in
        if !state.entered { state.enteredWaiters.append(continuation) }
        return state.entered
      }
      if already { continuation.resume() }
    }
  }

  /// Lets the operation return `value`, unless it was cancelled first.
  func open(_ value: Int) {
    settle(.success(value))
  }

  /// Whether the operation's task was cancelled.
  var wasCancelled: Bool {
    state.withLock { state in
      guard case .failure = state.outcome else { return false }
      return true
    }
  }

  private func settle(_ outcome: Result<Int, any Error>) {
    let waiting = state.withLock { state -> CheckedContinuation<Int, any Error>? in
      guard state.outcome == nil else { return nil }
      state.outcome = outcome
      defer { state.waiting = nil }
      return state.waiting
    }
    waiting?.resume(with: outcome)
  }
}

extension Future {
  /// Waits for the result without counting as a cancellable awaiter.
  var testResult: Result<Output, Failure> {
    get async {
      let box = LockedState<Result<Output, Failure>?>(nil)
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        finally { result in
          box.withLock { $0 = result }
          continuation.resume()
        }
      }
      return box.withLock { $0! }
    }
  }
}

/// Yields until `condition` holds, for at most `limit`; returns whether it held in time.
func eventually(within limit: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + limit
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    await Task.yield()
  }
  return true
}

extension RecordingSubscriber {
  /// Waits, with a deadline, until the recorder has a completion.
  ///
  /// Awaiting a future can return on the awaiting thread while the completing thread is still
  /// delivering to a subscriber that registered earlier, so a test that checks a recorder right
  /// after `await future.value` must wait for that delivery first.
  func waitForCompletion(within limit: Duration = .seconds(30)) async {
    let deadline = ContinuousClock.now + limit
    while completion == nil, ContinuousClock.now < deadline {
      await Task.yield()
    }
  }
}

/// Waits, at most 60 s, until the blocks queued on `queue` so far have run.
///
/// It suspends rather than blocks: a blocked thread is one of the few cooperative threads, and
/// libdispatch on Linux takes about a second to add a worker thread for the queue being waited
/// for.
func waitForQueue(
  _ queue: DispatchQueue,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  let drained = await withCheckedContinuation { continuation in
    let once = LockedState(false)
    let finish: @Sendable (Bool) -> Void = { drained in
      let first = once.withLock { done in
        defer { done = true }
        return !done
      }
      if first { continuation.resume(returning: drained) }
    }
    queue.async { finish(true) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) { finish(false) }
  }
  #expect(drained, "the queue did not drain in 60 s", sourceLocation: sourceLocation)
}

extension Future {
  /// Waits, at most 60 s, until the callbacks registered without a queue (on the future's
  /// private queue) so far have run; returns at once if there are none.
  func waitForCallbacks(sourceLocation: SourceLocation = #_sourceLocation) async {
    guard let queue = callbackDispatchQueue else { return }
    await waitForQueue(queue, sourceLocation: sourceLocation)
  }
}

extension StreamSubscriber {
  /// Waits, at most 60 s, until the callbacks registered without a queue (on the subscriber's
  /// private queue) so far have run; returns at once if there are none.
  func waitForCallbacks(sourceLocation: SourceLocation = #_sourceLocation) async {
    guard let queue = callbackDispatchQueue else { return }
    await waitForQueue(queue, sourceLocation: sourceLocation)
  }
}
