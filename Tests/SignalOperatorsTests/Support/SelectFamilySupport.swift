import StreamCore

/// The error the selecting operators' tests fail with.
struct SelectFamilyBoom: Error, Equatable {}

/// Holds a subscription for a closure written before the subscription exists.
// Sendable: `stored` is only reached under `lock`.
final class SelectFamilyHolder: @unchecked Sendable {
  private let lock = Lock()
  private var stored: (any Subscription)?

  var subscription: (any Subscription)? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// Counts calls, from any thread.
// Sendable: `count` is only reached under `lock`.
final class SelectFamilyCounter: @unchecked Sendable {
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
