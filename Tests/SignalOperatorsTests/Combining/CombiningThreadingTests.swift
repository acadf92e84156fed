import Dispatch
import Foundation
import StreamCore
import Synchronization
import Testing

@testable import SignalOperators

/// Combine's threading rules for the operators with several inputs, in the scenario app code
/// meets: thread A is inside the subscriber with one input's value when thread B sends into
/// another input. B waits for A to leave, then delivers its own value on B, and its `send`
/// returns only after that, as Combine's per-subscriber lock makes it. (Before: B queued its
/// value for A and returned at once; A delivered it later, on A.)
///
/// (`zip` has no scenario here: the value that completes its next tuple always comes from the
/// upstream the busy thread is sending on, whose own subscription makes a second sender wait.)
///
/// Threads meet at semaphores, never at a sleep; the one timed wait only gives a wrong
/// implementation the time to show itself.
// Serialized: the tests block threads inside subscribers (see `SubjectThreadingTests`).
@Suite(.serialized, .timeLimit(.minutes(5))) struct CombiningThreadingTests {
  /// Runs the scenario over `publisher`: `prime` runs first on the test's thread; then A runs
  /// `sendA` and is held inside the subscriber by the value `isA` picks, while B runs `sendB`,
  /// whose value `isB` picks.
  private func expectBWaitsForAThenDeliversOnB<Output: Sendable>(
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

  @Test func merge_concurrentSendWaitsForTheBusySubscriber_deliversOnItsThread() {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    expectBWaitsForAThenDeliversOnB(
      a.merge(with: b),
      sendA: { a.send(1) },
      sendB: { b.send(2) },
      isA: { $0 == 1 },
      isB: { $0 == 2 }
    )
  }

  @Test func flatMap_concurrentSendWaitsForTheBusySubscriber_deliversOnItsThread() {
    let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
    let x = PassthroughSubject<Int, Never>()
    let y = PassthroughSubject<Int, Never>()
    expectBWaitsForAThenDeliversOnB(
      outer.flatMap { $0 },
      prime: {
        outer.send(x)
        outer.send(y)
      },
      sendA: { x.send(1) },
      sendB: { y.send(2) },
      isA: { $0 == 1 },
      isB: { $0 == 2 }
    )
  }

  @Test func switchToLatest_concurrentSendWaitsForTheBusySubscriber_deliversOnItsThread() {
    let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
    let x = PassthroughSubject<Int, Never>()
    let y = PassthroughSubject<Int, Never>()
    expectBWaitsForAThenDeliversOnB(
      outer.switchToLatest(),
      prime: { outer.send(x) },
      sendA: { x.send(1) },
      sendB: {
        outer.send(y)  // switches while A is inside the subscriber with x's value
        y.send(2)
      },
      isA: { $0 == 1 },
      isB: { $0 == 2 }
    )
  }

  @Test func combineLatest_concurrentSendWaitsForTheBusySubscriber_deliversOnItsThread() {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    expectBWaitsForAThenDeliversOnB(
      a.combineLatest(b) { $0 + $1 },
      prime: {
        a.send(0)
        b.send(0)
      },
      sendA: { a.send(1) },  // 1 + 0
      sendB: { b.send(10) },  // 1 + 10
      isA: { $0 == 1 },
      isB: { $0 == 11 }
    )
  }
}
