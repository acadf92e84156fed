import FutureKit
import StreamCore

extension StreamSubscriber {
  /// Returns a stream of `transform` applied to this stream's values and errors, skipping the
  /// `nil` results.
  ///
  /// ```swift
  /// let importantStates = states.compactMapStates { state -> StreamState<Int, Failure>? in
  ///   state.value.flatMap { $0 > 100 ? .data($0) : nil } ?? state.error.map { .error($0) }
  /// }
  /// ```
  ///
  /// `transform` is called for `.data` and `.error` only; this stream's cancellation always
  /// cancels the new one. Returning `.cancelled` cancels the new stream.
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one state at a time.
  ///
  /// - Parameter transform: Turns each value or error into a state, or `nil` to skip it.
  /// - Returns: A stream that keeps this one alive.
  public func compactMapStates<T2, E2>(
    _ transform: @escaping (State) -> StreamState<T2, E2>?
  ) -> StreamSubscriber<T2, E2> {
    derive("compactMapStates") { state, publisher in
      if let mapped = transform(state) { publisher.publishState(mapped) }
    }
  }

  /// Returns a stream of `transform` applied to this stream's values, skipping the `nil`
  /// results; errors pass through.
  ///
  /// ```swift
  /// let numbers = texts.compactMapValues { Int($0) }
  /// ```
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one value at a time.
  ///
  /// - Parameter transform: Turns each value into a new value, or `nil` to skip it.
  /// - Returns: A stream that keeps this one alive.
  public func compactMapValues<T2>(
    _ transform: @escaping (T) -> T2?
  ) -> StreamSubscriber<T2, E> {
    derive("compactMapValues") { state, publisher in
      switch state {
      case .data(let value):
        if let mapped = transform(value) { publisher.publish(mapped) }
      case .error(let error):
        publisher.publish(error)
      case .cancelled:
        publisher.cancelAll()
      }
    }
  }

  /// Returns a stream of `transform` applied to this stream's errors, skipping the `nil`
  /// results; values pass through.
  ///
  /// ```swift
  /// let seriousErrors = states.compactMapErrors { $0.isTransient ? nil : Alert($0) }
  /// ```
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one error at a time.
  ///
  /// - Parameter transform: Turns each error into a new error, or `nil` to skip it.
  /// - Returns: A stream that keeps this one alive.
  public func compactMapErrors<E2>(
    _ transform: @escaping (E) -> E2?
  ) -> StreamSubscriber<T, E2> {
    derive("compactMapErrors") { state, publisher in
      switch state {
      case .data(let value):
        publisher.publish(value)
      case .error(let error):
        if let mapped = transform(error) { publisher.publish(mapped) }
      case .cancelled:
        publisher.cancelAll()
      }
    }
  }
}
