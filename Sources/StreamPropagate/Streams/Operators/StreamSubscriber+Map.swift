import FutureKit
import StreamCore

extension StreamSubscriber {
  /// Returns a stream whose states are `transform` applied to this stream's values and errors.
  ///
  /// ```swift
  /// let labels = temperatures.mapStates { state -> StreamState<String, UIError> in
  ///   switch state {
  ///   case .data(let celsius): .data("\(celsius) °C")
  ///   case .error(let error): .error(UIError(error))
  ///   case .cancelled: .cancelled
  ///   }
  /// }
  /// ```
  ///
  /// `transform` is called for `.data` and `.error` only: this stream's cancellation always
  /// cancels the new one. Returning `.cancelled` cancels the new stream.
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one state at a time.
  ///
  /// - Parameter transform: Turns each value or error into a state of the new stream.
  /// - Returns: A stream that keeps this one alive.
  public func mapStates<T2, E2>(
    _ transform: @escaping (State) -> StreamState<T2, E2>
  ) -> StreamSubscriber<T2, E2> {
    derive("mapStates") { state, publisher in
      publisher.publishState(transform(state))
    }
  }

  /// Returns a stream whose values are `transform` applied to this stream's values; errors pass
  /// through.
  ///
  /// ```swift
  /// let names = users.mapValues(\.name)
  /// ```
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one value at a time.
  ///
  /// - Parameter transform: Turns each value into a value of the new stream.
  /// - Returns: A stream that keeps this one alive.
  public func mapValues<T2>(_ transform: @escaping (T) -> T2) -> StreamSubscriber<T2, E> {
    derive("mapValues") { state, publisher in
      switch state {
      case .data(let value): publisher.publish(transform(value))
      case .error(let error): publisher.publish(error)
      case .cancelled: publisher.cancelAll()
      }
    }
  }

  /// Returns a stream whose errors are `transform` applied to this stream's errors; values pass
  /// through.
  ///
  /// ```swift
  /// let screenStates = repositoryStates.mapErrors { ScreenError.loading($0) }
  /// ```
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one error at a time.
  ///
  /// - Parameter transform: Turns each error into an error of the new stream.
  /// - Returns: A stream that keeps this one alive.
  public func mapErrors<E2>(_ transform: @escaping (E) -> E2) -> StreamSubscriber<T, E2> {
    derive("mapErrors") { state, publisher in
      switch state {
      case .data(let value): publisher.publish(value)
      case .error(let error): publisher.publish(transform(error))
      case .cancelled: publisher.cancelAll()
      }
    }
  }

  /// Returns a stream in which each value becomes any state: a value, an error, or `.cancelled`
  /// (which cancels the new stream). Errors pass through.
  ///
  /// ```swift
  /// let ages = inputs.splitMapValues { text -> StreamState<Int, FormError> in
  ///   Int(text).map { .data($0) } ?? .error(.notANumber(text))
  /// }
  /// ```
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one value at a time.
  ///
  /// - Parameter transform: Turns each value into a state of the new stream.
  /// - Returns: A stream that keeps this one alive.
  public func splitMapValues<T2>(
    _ transform: @escaping (T) -> StreamState<T2, E>
  ) -> StreamSubscriber<T2, E> {
    derive("splitMapValues") { state, publisher in
      switch state {
      case .data(let value): publisher.publishState(transform(value))
      case .error(let error): publisher.publish(error)
      case .cancelled: publisher.cancelAll()
      }
    }
  }

  /// Returns a stream in which each error becomes any state: a value (recovering from it),
  /// another error, or `.cancelled` (which cancels the new stream). Values pass through.
  ///
  /// ```swift
  /// let feed = remoteFeed.splitMapErrors { error -> StreamState<[Item], FeedError> in
  ///   error.isOffline ? .data(cachedItems) : .error(FeedError(error))
  /// }
  /// ```
  ///
  /// > Thread safety: `transform` runs on the publishing thread, for one error at a time.
  ///
  /// - Parameter transform: Turns each error into a state of the new stream.
  /// - Returns: A stream that keeps this one alive.
  public func splitMapErrors<E2>(
    _ transform: @escaping (E) -> StreamState<T, E2>
  ) -> StreamSubscriber<T, E2> {
    derive("splitMapErrors") { state, publisher in
      switch state {
      case .data(let value): publisher.publish(value)
      case .error(let error): publisher.publishState(transform(error))
      case .cancelled: publisher.cancelAll()
      }
    }
  }
}
