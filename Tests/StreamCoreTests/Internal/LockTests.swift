import Dispatch
import Synchronization
import Testing

@testable import StreamCore

/// A counter that is not atomic, guarded by a `Lock`: lost updates show a broken exclusion.
private final class Guarded: @unchecked Sendable {
  let lock = Lock()
  var count = 0
  var inside = 0
  var overlaps = 0

  func increment() {
    lock.withLock {
      inside += 1
      if inside != 1 { overlaps += 1 }
      count += 1
      inside -= 1
    }
  }
}

@Suite(.timeLimit(.minutes(5))) struct LockTests {
  @Test func withLock_returnsTheBodysResultAndRethrows() throws {
    let lock = Lock()
    #expect(lock.withLock { 42 } == 42)
    struct Thrown: Error {}
    #expect(throws: Thrown.self) { try lock.withLock { throw Thrown() } }
    // The throw released the lock: taking it again doesn't wait.
    #expect(lock.withLock { "again" } == "again")
  }

  @Test func manyThreads_noLostUpdateAndNoOverlap() {
    // More threads than this machine's cores, so holders are preempted and waiters sleep.
    let guarded = Guarded()
    let threads = 8
    let perThread = 50_000
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      for _ in 0..<perThread { guarded.increment() }
    }
    #expect(guarded.count == threads * perThread)
    #expect(guarded.overlaps == 0)
  }

  #if os(Linux) || os(Android)
  @Test func aSleepingWaiter_isWokenByTheUnlock() {
    // The waiter marks the word and sleeps on it; if it slept on anything but the lock's own
    // word, the unlock would not wake it and the semaphore would time out.
    let guarded = Guarded()
    let entered = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      guarded.lock.withLock {
        entered.signal()
        release.wait()
      }
    }
    entered.wait()
    DispatchQueue.global().async {
      guarded.increment()
      done.signal()
    }
    // Waits (bounded: at least 10 s, for a loaded machine) until the second thread has given up
    // spinning and marked the word.
    var marked = false
    for _ in 0..<100_000 {
      if guarded.lock.hasWaiter {
        marked = true
        break
      }
      usleepForTest()
    }
    #expect(marked)
    release.signal()
    #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
    #expect(guarded.count == 1)
  }
  #endif
}

/// Gives the other thread a chance to run while polling (not for correctness: the loop above
/// checks a state, and a failure is reported by the bounded wait).
private func usleepForTest() {
  let tick = DispatchSemaphore(value: 0)
  _ = tick.wait(timeout: .now() + .microseconds(100))
}
