import Dispatch
import FutureKit
import StreamCore

// Shared helpers for the Stream*Tests files.

/// The error type of the streams under test.
struct StreamTestError: Error, Equatable, Hashable {
  let code: Int

  init(_ code: Int) {
    self.code = code
  }
}

/// A second error type, for operators that change it.
struct StreamOtherError: Error, Equatable {
  let text: String
}

/// A thread-safe list that callbacks append to.
final class StreamLog<Element>: @unchecked Sendable {
  // Sendable: `storage` is a `LockedState`; the list is only reached through it.
  private let storage = LockedState<[Element]>([])

  func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  var elements: [Element] {
    storage.withLock { $0 }
  }

  var count: Int {
    storage.withLock { $0.count }
  }
}

extension StreamSubscriber {
  /// Records every state this stream delivers to a callback registered now.
  func record() -> StreamLog<StreamState<T, E>> {
    let log = StreamLog<StreamState<T, E>>()
    subscribe { log.append($0) }
    return log
  }
}

/// Fetches the value only callbacks running on `queue` see, to check where a callback ran.
final class StreamQueueMarker: Sendable {
  let queue: DispatchQueue
  private let key = DispatchSpecificKey<Int>()

  init(label: String) {
    queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: 1)
  }

  var isCurrent: Bool {
    DispatchQueue.getSpecific(key: key) == 1
  }

  /// Waits until everything queued so far on the queue has run.
  func flush() {
    queue.sync {}
  }
}
