import Dispatch
import Foundation
import StreamCore
import Synchronization

/// Semaphore waits that give up after 30 seconds and count each that did, so that a broken
/// threading rule fails its test instead of hanging it.
final class TimedWaits: Sendable {
  private let count = Atomic<Int>(0)

  func wait(_ semaphore: DispatchSemaphore) {
    if semaphore.wait(timeout: .now() + 30) == .timedOut { count.add(1, ordering: .relaxed) }
  }

  /// How many waits gave up.
  var timedOut: Int { count.load(ordering: .relaxed) }
}

/// Lines logged from any thread, each with the thread that logged it.
final class ThreadLog: Sendable {
  private let entries = Mutex<[(line: String, thread: UInt)]>([])

  func append(_ line: String) {
    let thread = ThreadID.current.rawValue
    entries.withLock { $0.append((line, thread)) }
  }

  var lines: [String] { entries.withLock { $0.map(\.line) } }

  func thread(of line: String) -> UInt? {
    entries.withLock { $0.first { $0.line == line }?.thread }
  }
}

/// Runs `body` on a thread of its own, not one of Dispatch's pool (it may block inside a
/// subscriber, and a pool that other tests hold can't always lend a thread at once); the
/// returned semaphore is signalled when `body` returns.
func runOnThread(_ name: String, _ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.name = name
  thread.start()
  return done
}
