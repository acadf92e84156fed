import StreamCore
import StreamTesting

/// The error the tests fail upstreams with and throw from closures; `code` tells two apart.
///
/// It prints as `Boom`, or `Boom(<code>)` when `code` isn't 0, so that event logs read short.
struct TestError: Error, Equatable, CustomStringConvertible {
  var code = 0

  /// The error a test closure throws, distinct from the upstream's `TestError()`.
  static let thrown = TestError(code: 99)

  var description: String { code == 0 ? "Boom" : "Boom(\(code))" }
}

/// An object a test closure captures, so the test can check (through a weak reference) that the
/// operator released the closure.
final class ReleaseToken: Sendable {}

/// Holds a subscription for a closure written before the subscription exists.
// Sendable: `stored` is only reached under `lock`.
final class SubscriptionHolder: @unchecked Sendable {
  private let lock = Lock()
  private var stored: (any Subscription)?

  var subscription: (any Subscription)? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// Holds a recorder for its own `demandPerValue` closure, which is written before it exists.
// Sendable: `stored` is only reached under `lock`.
final class RecorderHolder<Input, Failure: Error>: @unchecked Sendable {
  private let lock = Lock()
  private var stored: RecordingSubscriber<Input, Failure>?

  var recorder: RecordingSubscriber<Input, Failure>? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// Counts calls, from any thread.
// Sendable: `count` is only reached under `lock`.
final class CallCounter: @unchecked Sendable {
  private let lock = Lock()
  private var count = 0

  var value: Int { lock.withLock { count } }

  /// Adds one and returns the count before.
  @discardableResult
  func increment() -> Int {
    lock.withLock {
      defer { count += 1 }
      return count
    }
  }
}
