internal import StreamCore

/// One task awaiting a future's value with cancellation: it is resumed exactly once, with the
/// result or with `CancellationError`, whichever comes first.
final class FutureAwaiter<Output: Sendable, Failure: Error>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Result<Output, Failure>, any Error>?
    var isCancelled = false
  }

  private let state = LockedState(State())

  /// Stores the continuation, or resumes it with `CancellationError` if already cancelled.
  ///
  /// - Parameter continuation: The awaiting task's continuation.
  /// - Returns: `false` if the awaiter was already cancelled.
  func install(_ continuation: CheckedContinuation<Result<Output, Failure>, any Error>) -> Bool {
    let cancelled = state.withLock { state -> Bool in
      guard !state.isCancelled else { return true }
      state.continuation = continuation
      return false
    }
    if cancelled {
      continuation.resume(throwing: CancellationError())
    }
    return !cancelled
  }

  /// Whether the awaiting task was cancelled.
  var isCancelled: Bool {
    state.withLock { $0.isCancelled }
  }

  /// Resumes with the result, unless already resumed.
  ///
  /// - Parameter result: The future's result.
  func resume(with result: Result<Output, Failure>) {
    take()?.resume(returning: result)
  }

  /// Marks the awaiter cancelled and resumes with `CancellationError`, unless already resumed.
  func cancel() {
    let continuation = state.withLock { state in
      state.isCancelled = true
      return take(&state)
    }
    continuation?.resume(throwing: CancellationError())
  }

  private func take() -> CheckedContinuation<Result<Output, Failure>, any Error>? {
    state.withLock { take(&$0) }
  }

  private func take(
    _ state: inout State
  ) -> CheckedContinuation<Result<Output, Failure>, any Error>? {
    defer { state.continuation = nil }
    return state.continuation
  }
}
