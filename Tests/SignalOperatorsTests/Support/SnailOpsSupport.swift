import StreamCore

/// The failure used by the Snail operator tests.
enum SnailOpsError: Error, Equatable {
  case boom
}

/// A thread-safe log of what the Snail closures received.
final class SnailOpsLog<Element: Sendable>: Sendable {
  private let state = LockedState<[Element]>([])

  var entries: [Element] { state.withLock { $0 } }

  func append(_ element: Element) {
    state.withLock { $0.append(element) }
  }
}
