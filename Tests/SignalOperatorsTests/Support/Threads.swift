import Dispatch
import Foundation
import StreamCore
import Synchronization
import Testing

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

/// The scenario app code meets, over `publisher`: thread A is inside the subscriber when thread
/// B sends; B must wait for A to leave, then deliver its own value on B, and its `send` must
/// return only after that, as Combine's per-subscriber lock makes it.
///
/// Runs the scenario over `publisher`: `prime` runs first on the test's thread; then A runs
/// `sendA` and is held inside the subscriber by the value `isA` picks, while B runs `sendB`,
/// whose value `isB` picks.
func expectBWaitsForAThenDeliversOnB<Output: Sendable>(
  _ publisher: some Publisher<Output, Never>,
  prime: () -> Void = {},
  sendA: @escaping @Sendable () -> Void,
  sendB: @escaping @Sendable () -> Void,
  isA: @escaping @Sendable (Output) -> Bool,
  isB: @escaping @Sendable (Output) -> Bool,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let log = ThreadLog()
  let waits = TimedWaits()
  let aInside = DispatchSemaphore(value: 0)
  let aGo = DispatchSemaphore(value: 0)
  let sink = publisher.sink { value in
    if isB(value) { log.append("B's value") }
    if isA(value) {
      aInside.signal()
      waits.wait(aGo)
      log.append("A left")
    }
  }
  prime()
  let aDone = runOnThread("A", sendA)
  waits.wait(aInside)
  let bThread = Mutex<UInt>(0)
  let bStarted = DispatchSemaphore(value: 0)
  let bReturned = DispatchSemaphore(value: 0)
  let bDone = runOnThread("B") {
    bThread.withLock { $0 = ThreadID.current.rawValue }
    bStarted.signal()
    sendB()
    log.append("B returned")
    bReturned.signal()
  }
  waits.wait(bStarted)
  // B's `send` can't return while A is inside the subscriber, however long A stays: give a
  // wrong implementation a moment to show it (a correct one waits whatever the moment).
  let returnedWhileAInside = bReturned.wait(timeout: .now() + .milliseconds(200)) == .success
  #expect(!returnedWhileAInside, sourceLocation: sourceLocation)
  aGo.signal()
  waits.wait(aDone)
  waits.wait(bDone)
  #expect(waits.timedOut == 0, sourceLocation: sourceLocation)
  #expect(log.thread(of: "B's value") == bThread.withLock { $0 }, sourceLocation: sourceLocation)
  #expect(
    log.lines == ["A left", "B's value", "B returned"],
    sourceLocation: sourceLocation
  )
  withExtendedLifetime(sink) {}
}
