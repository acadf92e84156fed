import FutureKit
import StreamCore

extension StreamSubscriber where T: Equatable {
  /// Returns a stateful stream that skips a value equal to the previous one.
  ///
  /// ```swift
  /// // publishes 1, 1, error, 1, 2, 2  →  the stream delivers 1, error, 1, 2
  /// let changes = readings.distinctValues()
  /// ```
  ///
  /// Only consecutive values are compared, and an error in between resets the comparison: the
  /// first value after an error always goes through. Errors always go through. Like every
  /// stateful stream, it replays its latest state to each new callback.
  ///
  /// - Returns: A stream that keeps this one alive.
  public func distinctValues() -> StreamSubscriber<T, E> {
    var previous: T?
    return derive("distinctValues", keepsState: true) { state, publisher in
      switch state {
      case .data(let value):
        guard value != previous else { return }
        previous = value
        publisher.publish(value)
      case .error(let error):
        previous = nil
        publisher.publish(error)
      case .cancelled:
        publisher.cancelAll()
      }
    }
  }
}

extension StreamSubscriber where T: Equatable, E: Equatable {
  /// Returns a stateful stream that skips a state equal to the previous one: the same value
  /// again, or the same error again.
  ///
  /// ```swift
  /// // publishes 1, 1, error(a), error(a), 1  →  the stream delivers 1, error(a), 1
  /// let changes = statuses.distinctStates()
  /// ```
  ///
  /// Like every stateful stream, it replays its latest state to each new callback.
  ///
  /// - Returns: A stream that keeps this one alive.
  public func distinctStates() -> StreamSubscriber<T, E> {
    var previous: State?
    return derive("distinctStates", keepsState: true) { state, publisher in
      guard state != previous else { return }
      previous = state
      publisher.publishState(state)
    }
  }
}
