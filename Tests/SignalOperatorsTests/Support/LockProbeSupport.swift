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

/// An error whose deinit runs `onDeinit`: a failure holding the last reference to something.
final class LockProbeError: Error, Sendable {
  private let onDeinit: @Sendable () -> Void

  init(onDeinit: @escaping @Sendable () -> Void) {
    self.onDeinit = onDeinit
  }

  deinit {
    onDeinit()
  }
}

/// A publisher for one subscriber, driven by the test, that keeps no copy of what it sends (a
/// subject keeps its completion): after ``fail(_:)`` the operator holds the failure's last
/// reference. It ignores demand; for single-threaded tests.
final class LockProbeSource<Output, Failure: Error>: Publisher {
  private var valueTarget: ((Output) -> Subscribers.Demand)?
  private var completionTarget: ((Subscribers.Completion<Failure>) -> Void)?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    valueTarget = { subscriber.receive($0) }
    completionTarget = { subscriber.receive(completion: $0) }
    subscriber.receive(subscription: IgnoredSubscription())
  }

  func send(_ value: Output) {
    _ = valueTarget?(value)
  }

  func fail(_ error: Failure) {
    let target = completionTarget
    valueTarget = nil
    completionTarget = nil
    target?(.failure(error))
  }
}
