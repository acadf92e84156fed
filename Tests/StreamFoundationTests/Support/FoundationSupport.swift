import Dispatch
import Foundation

/// What a test collected from other threads, with a bounded wait for the next items.
final class Collected<Element>: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Element] = []

  func append(_ element: Element) {
    lock.lock()
    storage.append(element)
    lock.unlock()
  }

  var items: [Element] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }

  /// Waits until at least `count` items arrived, for at most `seconds`; returns whether they did.
  ///
  /// It polls without blocking a thread, so tests waiting at the same time do not starve the
  /// test runner's threads.
  func wait(for count: Int, seconds: Int = 60) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while items.count < count {
      if ContinuousClock.now >= deadline { return false }
      try? await Task.sleep(for: .milliseconds(1))
    }
    return true
  }
}

/// A thread that runs its own run loop until stopped, so run-loop scheduling is tested without the
/// main run loop (which nobody runs during `swift test` on Linux).
///
/// The loop waits with no deadline, so an action reaches it only if scheduling it wakes the loop.
final class RunLoopThread: @unchecked Sendable {
  private let ready = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var stopped = false
  private var loop: RunLoop?
  private var thread: Thread?

  init() {
    let thread = Thread { [self] in
      let keepAlive = Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }
      RunLoop.current.add(keepAlive, forMode: .default)
      lock.lock()
      loop = RunLoop.current
      lock.unlock()
      ready.signal()
      while !isStopped {
        _ = RunLoop.current.run(mode: .default, before: .distantFuture)
      }
    }
    self.thread = thread
    thread.start()
    ready.wait()
  }

  /// The thread's run loop; only scheduled on from other threads.
  var runLoop: RunLoop {
    lock.lock()
    defer { lock.unlock() }
    return loop!
  }

  /// Whether the caller runs on this thread.
  var isCurrent: Bool { Thread.current === thread }

  private var isStopped: Bool {
    lock.lock()
    defer { lock.unlock() }
    return stopped
  }

  /// Ends the thread: sets the flag, then wakes the loop with a timer due now.
  func stop() {
    lock.lock()
    let first = !stopped
    stopped = true
    lock.unlock()
    if first {
      runLoop.add(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, forMode: .default)
    }
  }

  deinit { stop() }
}
