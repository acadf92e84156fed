import Foundation
import StreamCore

/// Whether `body`, run on a thread of its own, returns within `seconds`.
///
/// For a deinit (or other callback) that wants to know whether it runs inside an operator's
/// lock: `body` calls into the operator, which takes that lock. If the calling thread holds it,
/// `body` blocks and this returns `false` after `seconds` instead of trapping on a recursive
/// lock; the thread finishes on its own once the lock is free. The wait is only a bound: when
/// the lock is free, `body` returns at once.
func lockProbeReturnsPromptly(
  within seconds: Double = 10,
  _ body: @escaping @Sendable () -> Void
) -> Bool {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.start()
  return done.wait(timeout: .now() + seconds) == .success
}

/// An object whose deinit runs `onDeinit`: the owner a transform closure captures.
final class LockProbeOwner: Sendable {
  private let onDeinit: @Sendable () -> Void

  init(onDeinit: @escaping @Sendable () -> Void) {
    self.onDeinit = onDeinit
  }

  deinit {
    onDeinit()
  }
}
