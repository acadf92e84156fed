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
