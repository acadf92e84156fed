import Dispatch
import StreamCore

/// The failure the SwiftySignals tests send.
struct SwiftyTestError: Error, Equatable {}

/// An object whose method records the values it is called with.
final class SwiftyTarget {
  var received: [Int] = []

  func update(_ value: Int) {
    received.append(value)
  }
}

/// Tells whether code runs on the main queue, and waits for the main queue.
///
/// `swift test` services the main queue all along, on Linux too (its async `main` drains it),
/// so blocks scheduled with `DispatchQueue.main.async` run while a test awaits.
enum SwiftyMainQueue {
  private static let key = DispatchSpecificKey<Bool>()
  private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

  /// Whether the caller runs on the main queue.
  static var isCurrent: Bool {
    _ = marked
    return DispatchQueue.getSpecific(key: key) ?? false
  }

  /// Returns once the main queue has run every block scheduled on it before this call.
  static func drain() async {
    _ = marked
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
  }
}

/// A thread-safe log that a test awaits, with a 60-second deadline, without blocking a thread.
final class SwiftyLog<Element: Sendable>: Sendable {
  private struct Waiter {
    let id: Int
    let count: Int
    let continuation: CheckedContinuation<Bool, Never>
  }

  private struct State {
    var entries: [Element] = []
    var waiters: [Waiter] = []
    var nextID = 0
  }

  private let state = LockedState(State())

  /// What has been appended so far.
  var entries: [Element] { state.withLock { $0.entries } }

  /// Appends `entry` and wakes the waiters it satisfies.
  func append(_ entry: Element) {
    let ready = state.withLock { state -> [Waiter] in
      state.entries.append(entry)
      let ready = state.waiters.filter { $0.count <= state.entries.count }
      state.waiters.removeAll { $0.count <= state.entries.count }
      return ready
    }
    for waiter in ready { waiter.continuation.resume(returning: true) }
  }

  /// Waits until the log has at least `count` entries; `false` after 60 seconds without.
  func wait(forCount count: Int) async -> Bool {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> Int? in
        guard state.entries.count < count else { return nil }
        state.nextID += 1
        state.waiters.append(Waiter(id: state.nextID, count: count, continuation: continuation))
        return state.nextID
      }
      guard let id else {
        continuation.resume(returning: true)
        return
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
        let expired = self.state.withLock { state -> Waiter? in
          guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
          return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: false)
      }
    }
  }
}
