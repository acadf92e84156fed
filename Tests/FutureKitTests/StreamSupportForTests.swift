import Dispatch
import FutureKit
import StreamCore
import StreamPropagate
import Testing

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
///
/// Callbacks registered without a queue run later, on their subscriber's private queue: after
/// ``waits(on:)``, reading the list first waits (at most 60 s, suspending) until that queue has
/// run everything queued so far.
final class StreamLog<Element>: @unchecked Sendable {
  // Sendable: `storage` and `queues` are `LockedState`s; the lists are only reached through them.
  private let storage = LockedState<[Element]>([])
  private let queues = LockedState<[DispatchQueue]>([])

  func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  /// Makes reads wait for the private callback queue of `subscriber`; call it after registering
  /// the callback that appends.
  @discardableResult
  func waits<T, E>(on subscriber: StreamSubscriber<T, E>) -> Self {
    if let queue = subscriber.callbackDispatchQueue {
      queues.withLock { $0.append(queue) }
    }
    return self
  }

  /// As ``waits(on:)-(StreamSubscriber<T, E>)``, for a value-only stream.
  @discardableResult
  func waits<T>(on stream: ValueOnlyStreamSubscriber<T>) -> Self {
    if let queue = stream.callbackDispatchQueue {
      queues.withLock { $0.append(queue) }
    }
    return self
  }

  /// As ``waits(on:)-(StreamSubscriber<T, E>)``, for an update-only stream.
  @discardableResult
  func waits(on stream: UpdateOnlyStreamSubscriber) -> Self {
    if let queue = stream.callbackDispatchQueue {
      queues.withLock { $0.append(queue) }
    }
    return self
  }

  private func settle() async {
    for queue in queues.withLock({ $0 }) { await waitForQueue(queue) }
  }

  /// The list, once the callbacks queued so far have run.
  var elements: [Element] {
    get async {
      await settle()
      return storage.withLock { $0 }
    }
  }

  /// The number of elements, once the callbacks queued so far have run.
  var count: Int {
    get async {
      await settle()
      return storage.withLock { $0.count }
    }
  }
}

extension StreamSubscriber {
  /// Records every state this stream delivers to a callback registered now.
  func record() -> StreamLog<StreamState<T, E>> {
    let log = StreamLog<StreamState<T, E>>()
    subscribe { log.append($0) }
    return log.waits(on: self)
  }

  /// Records every state this stream delivers to a callback registered now with
  /// `.synchronously`: the log is complete when `publish` or `cancel()` returns.
  func recordSynchronously() -> StreamLog<StreamState<T, E>> {
    let log = StreamLog<StreamState<T, E>>()
    subscribe(.synchronously) { log.append($0) }
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
