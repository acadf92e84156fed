import FutureKit
import StreamCore

extension StreamSubscriber {
  /// Returns a stateful stream: each callback registered on it is first called with the latest
  /// state, synchronously, and then with every later state.
  ///
  /// ```swift
  /// let session = sessionStates.stateful()
  /// // later, anywhere:
  /// session.onNewData { render($0) }  // renders the current session at once
  /// ```
  ///
  /// The replay happens once per registration call. Nothing is replayed before this stream's
  /// first state (unless this stream is itself stateful, in which case its latest state is
  /// taken over at once). After cancellation a new callback receives only `.cancelled`.
  ///
  /// - Returns: A stream that keeps this one alive.
  public func stateful() -> StreamSubscriber<T, E> {
    derive("stateful", keepsState: true) { state, publisher in
      publisher.publishState(state)
    }
  }

  /// Returns a stateful stream that starts with `value`, then follows this stream.
  ///
  /// ```swift
  /// let query = searchText.startWith("")
  /// query.onNewData { search($0) }  // searches "" at once
  /// ```
  ///
  /// If this stream is stateful, its latest state replaces `value` at once.
  ///
  /// - Parameter value: The first state, replayed until this stream publishes.
  /// - Returns: A stream that keeps this one alive.
  public func startWith(_ value: T) -> StreamSubscriber<T, E> {
    derive("startWith", keepsState: true, seed: .data(value)) { state, publisher in
      publisher.publishState(state)
    }
  }

  /// Returns a stateful stream that holds `value` forever: every callback receives it at once.
  ///
  /// ```swift
  /// let fixed = StreamSubscriber<Int, Never>.of(42)
  /// fixed.onNewData { print($0) }  // prints 42
  /// ```
  ///
  /// - Parameter value: The one state of the stream.
  /// - Returns: A stream that is never cancelled, unless ``cancel()`` is called.
  public static func of(_ value: T) -> StreamSubscriber<T, E> {
    single(.data(value))
  }

  /// Returns a stateful stream that holds `error` forever: every callback receives it at once.
  ///
  /// ```swift
  /// let failing = StreamSubscriber<Int, LoadError>.of(LoadError.offline)
  /// ```
  ///
  /// - Parameter error: The one state of the stream.
  /// - Returns: A stream that is never cancelled, unless ``cancel()`` is called.
  public static func of(_ error: E) -> StreamSubscriber<T, E> {
    single(.error(error))
  }

  private static func single(_ state: State) -> StreamSubscriber<T, E> {
    let publisher = StreamPublisher<T, E>(keepsState: true)
    publisher.publishState(state)
    return publisher.makeSubscriber(retaining: [publisher], logger: nil)
  }

  /// Returns a stream that, once `count` values have arrived, publishes the latest `count`
  /// values, oldest first, on each new value.
  ///
  /// ```swift
  /// // publishes 1, 2, 3, 4  →  scanValues(3) delivers [1, 2, 3], [2, 3, 4]
  /// let windows = readings.scanValues(3)
  /// ```
  ///
  /// Errors pass through and don't clear the window. With `count < 1` no value is ever
  /// published (errors still pass through), as in Propagate. Only `count` values are kept.
  ///
  /// - Parameter count: The size of the window.
  /// - Returns: A stream that keeps this one alive.
  public func scanValues(_ count: Int) -> StreamSubscriber<[T], E> {
    var window: [T] = []
    return derive("scanValues") { state, publisher in
      switch state {
      case .data(let value):
        guard count > 0 else { return }
        window.append(value)
        if window.count > count { window.removeFirst(window.count - count) }
        if window.count == count { publisher.publish(window) }
      case .error(let error):
        publisher.publish(error)
      case .cancelled:
        publisher.cancelAll()
      }
    }
  }
}
