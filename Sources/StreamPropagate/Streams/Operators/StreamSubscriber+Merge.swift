import FutureKit
import StreamCore

extension StreamSubscriber {
  /// Returns a stream of every value and error from all of `subscribers`, in arrival order,
  /// cancelled only once every one of them is cancelled.
  ///
  /// ```swift
  /// let allMessages = StreamSubscriber.merge([inbox, outbox, drafts])
  /// ```
  ///
  /// The merged stream keeps the sources alive. Merging no streams gives a stream that is
  /// already cancelled (every source, of none, is cancelled; nothing could ever arrive).
  ///
  /// > Thread safety: Sources may publish from different threads at once; the merged stream
  /// > delivers one state at a time, each source's states in their order.
  ///
  /// - Parameter subscribers: The streams to merge.
  /// - Returns: The merged stream.
  public static func merge(_ subscribers: [StreamSubscriber<T, E>]) -> StreamSubscriber<T, E> {
    let publisher = StreamPublisher<T, E>(keepsState: subscribers.contains { $0.keepsState })
    let merged = publisher.makeSubscriber(retaining: subscribers, logger: nil)
    guard !subscribers.isEmpty else {
      publisher.cancelAll()
      return merged
    }
    let remaining = LockedState(subscribers.count)
    for source in subscribers {
      _ = source.addCallback(.inline) { state in
        guard case .cancelled = state else {
          publisher.publishState(state)
          return
        }
        let allCancelled = remaining.withLock { count in
          count -= 1
          return count == 0
        }
        if allCancelled { publisher.cancelAll() }
      }
    }
    return merged
  }

  /// Returns a stream of every value and error from all of `subscribers`; see
  /// ``merge(_:)-([StreamSubscriber<T,E>])``.
  ///
  /// ```swift
  /// let taps = StreamSubscriber.merge(leftButtonTaps, rightButtonTaps)
  /// ```
  ///
  /// - Parameter subscribers: The streams to merge.
  /// - Returns: The merged stream.
  public static func merge(_ subscribers: StreamSubscriber<T, E>...) -> StreamSubscriber<T, E> {
    merge(subscribers)
  }

  /// Returns a stream of every value and error from this stream and `others`; cancelled once
  /// all of them are.
  ///
  /// ```swift
  /// let all = local.mergeWith([remote, cache])
  /// ```
  ///
  /// - Parameter others: The streams to merge with this one.
  /// - Returns: The merged stream.
  public func mergeWith(_ others: [StreamSubscriber<T, E>]) -> StreamSubscriber<T, E> {
    Self.merge([self] + others)
  }

  /// Returns a stream of every value and error from this stream and `others`; cancelled once
  /// all of them are.
  ///
  /// ```swift
  /// let all = local.mergeWith(remote, cache)
  /// ```
  ///
  /// - Parameter others: The streams to merge with this one.
  /// - Returns: The merged stream.
  public func mergeWith(_ others: StreamSubscriber<T, E>...) -> StreamSubscriber<T, E> {
    Self.merge([self] + others)
  }
}
