/// A value behind a ``Lock``, for code off the hot path: tests, test support, bookkeeping.
///
/// It shares `Lock`'s ThreadSanitizer edge, which a bare `Synchronization.Mutex` lacks on Linux.
/// Hot types keep a `Lock` next to their own stored state instead, which saves this object's
/// allocation. To guard several separate variables, use a `Lock` too, not `LockedState(())`: a
/// zero-sized state shares its address with the lock, and ThreadSanitizer then reports a race
/// between reading the lock and modifying the state.
// Sendable: `state` is only reached through `withLock`, under `lock`.
package final class LockedState<State>: @unchecked Sendable {
  private let lock = Lock()
  private var state: State

  /// - Parameter initial: The first value.
  package init(_ initial: State) {
    state = initial
  }

  /// Runs `body` with exclusive access to the value.
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try lock.withLock { try body(&state) }
  }
}
