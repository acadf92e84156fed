// Code written for Combine in the Swift 6 language mode: a non-`Sendable` class hands
// `AnyCancellable` a closure that captures it. Combine's `AnyCancellable.init(_:)` takes a plain
// closure; with a `@Sendable` parameter this file would not compile.

import StreamCore
import Testing

/// A library's poller, with mutable state and no `Sendable` conformance.
final class Poller {
  var stopped = 0

  func start() -> AnyCancellable {
    AnyCancellable { self.stopped += 1 }
  }
}

@Suite(.timeLimit(.minutes(5))) struct PlainClosureCancellableTests {
  @Test func aClosureCapturingANonSendableClass_runsOnceOnCancel() {
    let poller = Poller()
    let token = poller.start()
    token.cancel()
    token.cancel()
    #expect(poller.stopped == 1)
  }
}
