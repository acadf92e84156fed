import FutureKit
import StreamCore

extension StreamSubscriber {
  /// Returns a stream of tuples of the latest value of each source, for any number of sources.
  ///
  /// ```swift
  /// let form = StreamSubscriber.combine(emails, passwords, termsAccepted)
  ///   .onNewData { email, password, accepted in submitButton.isEnabled = accepted }
  /// ```
  ///
  /// - Nothing is published until every source has published a value. After that, each value
  ///   from any source publishes a new tuple with that source's element replaced.
  /// - An error from any source passes through and doesn't clear the stored values.
  /// - The combined stream is cancelled as soon as **any** source is cancelled.
  /// - It keeps the sources alive. Propagate stops at six sources; this takes any number.
  ///
  /// > Thread safety: Sources may publish from different threads at once; each tuple is built
  /// > and queued atomically, so the tuples arrive in the order the values did and the last
  /// > one holds the latest value of every source.
  ///
  /// - Parameters:
  ///   - first: The source of the tuple's first element.
  ///   - rest: The sources of the other elements, in order.
  /// - Returns: The combined stream.
  public static func combine<A, each U>(
    _ first: StreamSubscriber<A, E>,
    _ rest: repeat StreamSubscriber<each U, E>
  ) -> StreamSubscriber<(A, repeat each U), E> where T == (A, repeat each U) {
    combineStreams(first, repeat each rest)
  }

  /// Returns a stream of tuples of the latest value of this stream and each of `others`; see
  /// ``combine(_:_:)``.
  ///
  /// ```swift
  /// let pair = ints.combineWith(strings)  // StreamSubscriber<(Int, String), E>
  /// ```
  ///
  /// - Parameter others: The sources of the tuple's other elements, in order.
  /// - Returns: The combined stream.
  public func combineWith<each U>(
    _ others: repeat StreamSubscriber<each U, E>
  ) -> StreamSubscriber<(T, repeat each U), E> {
    combineStreams(self, repeat each others)
  }
}

/// Combines any number of streams; the shared implementation of `combine` and `combineWith`.
func combineStreams<each U, E: Error>(
  _ sources: repeat StreamSubscriber<each U, E>
) -> StreamSubscriber<(repeat each U), E> {
  var retained: [AnyObject] = []
  var keepsState = false
  for source in repeat each sources {
    retained.append(source)
    keepsState = keepsState || source.keepsState
  }
  let publisher = StreamPublisher<(repeat each U), E>(keepsState: keepsState)
  let combined = publisher.makeSubscriber(retaining: retained, logger: nil)
  // One lock for all slots, so that a tuple is built and queued atomically.
  let slots = (repeat StreamLatestSlot<each U>())
  let lock = Lock()
  typealias Enqueued = StreamPublisher<(repeat each U), E>.Enqueued
  for (source, slot) in repeat (each sources, each slots) {
    _ = source.addCallback(.inline) { state in
      // The slot's old value is moved here and released after the lock.
      var replaced = state
      // The tuple is built and queued under one lock, and delivered after it.
      let queued = lock.withLock { () -> (StreamState<(repeat each U), E>, Enqueued)? in
        let next: StreamState<(repeat each U), E>
        switch state {
        case .data(let value):
          if let old = slot.value.take() { replaced = .data(old) }
          slot.value = value
          guard let tuple = try? (repeat unwrapSlot(each slots)) else { return nil }
          next = .data(tuple)
        case .error(let error):
          next = .error(error)
        case .cancelled:
          next = .cancelled
        }
        return (next, publisher.enqueue(next))
      }
      _ = replaced
      guard let (next, enqueued) = queued else { return }
      publisher.finish(enqueued, next)
    }
  }
  return combined
}

/// The latest value of one combined source; only touched under the combination's lock.
final class StreamLatestSlot<Value> {
  var value: Value?
}

private struct StreamSlotEmpty: Error {}

/// The slot's value, or a throw if the source hasn't published yet.
private func unwrapSlot<Value>(_ slot: StreamLatestSlot<Value>) throws -> Value {
  guard let value = slot.value else { throw StreamSlotEmpty() }
  return value
}
