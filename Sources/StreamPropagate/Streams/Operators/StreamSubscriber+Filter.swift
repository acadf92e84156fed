import FutureKit
import StreamCore

extension StreamSubscriber {
  /// Returns a stream of the values and errors for which `isIncluded` returns `true`.
  ///
  /// ```swift
  /// let relevant = states.filterStates { $0.value != 0 }
  /// ```
  ///
  /// `isIncluded` sees `.data` and `.error` only; cancellation always passes.
  ///
  /// > Thread safety: `isIncluded` runs on the publishing thread, for one state at a time.
  ///
  /// - Parameter isIncluded: Whether a state goes through.
  /// - Returns: A stream that keeps this one alive.
  public func filterStates(_ isIncluded: @escaping (State) -> Bool) -> StreamSubscriber<T, E> {
    derive("filterStates") { state, publisher in
      if isIncluded(state) { publisher.publishState(state) }
    }
  }

  /// Returns a stream of the values for which `isIncluded` returns `true`; errors pass through.
  ///
  /// ```swift
  /// let validEmails = emails.filterValues { $0.contains("@") }
  /// ```
  ///
  /// > Thread safety: `isIncluded` runs on the publishing thread, for one value at a time.
  ///
  /// - Parameter isIncluded: Whether a value goes through.
  /// - Returns: A stream that keeps this one alive.
  public func filterValues(_ isIncluded: @escaping (T) -> Bool) -> StreamSubscriber<T, E> {
    derive("filterValues") { state, publisher in
      if case .data(let value) = state, !isIncluded(value) { return }
      publisher.publishState(state)
    }
  }

  /// Returns a stream of the errors for which `isIncluded` returns `true`; values pass through.
  ///
  /// ```swift
  /// let visibleErrors = states.filterErrors { !$0.isCancellationByUser }
  /// ```
  ///
  /// > Thread safety: `isIncluded` runs on the publishing thread, for one error at a time.
  ///
  /// - Parameter isIncluded: Whether an error goes through.
  /// - Returns: A stream that keeps this one alive.
  public func filterErrors(_ isIncluded: @escaping (E) -> Bool) -> StreamSubscriber<T, E> {
    derive("filterErrors") { state, publisher in
      if case .error(let error) = state, !isIncluded(error) { return }
      publisher.publishState(state)
    }
  }

  /// Returns a stream of the non-`nil` values, unwrapped; errors pass through.
  ///
  /// ```swift
  /// let logins: StreamSubscriber<Login, AuthError> = optionalLogins.filterNil()
  /// ```
  ///
  /// - Returns: A stream that keeps this one alive.
  public func filterNil<Wrapped>() -> StreamSubscriber<Wrapped, E> where T == Wrapped? {
    derive("filterNil") { state, publisher in
      switch state {
      case .data(let value):
        if let value { publisher.publish(value) }
      case .error(let error):
        publisher.publish(error)
      case .cancelled:
        publisher.cancelAll()
      }
    }
  }
}
