import FutureKit
import StreamCore

/// One update of a Propagate-style stream: a value, an error, or the end of the stream.
///
/// ```swift
/// let states: [StreamState<Int, LoadError>] = [.data(1), .error(.offline), .data(2), .cancelled]
/// states.compactMap(\.value)  // [1, 2]
/// ```
///
/// Unlike a StreamCore completion, `.error` does **not** end a stream: more states may follow.
/// Only `.cancelled` is terminal; a stream delivers nothing after it.
///
/// `description` prints `Data: <value>`, `Error: <error>` and `Cancelled.`.
///
/// > Thread safety: A value type; it is `Sendable` when `T` is.
public enum StreamState<T, E: Error> {
  /// A new value.
  case data(T)

  /// An error; the stream goes on.
  case error(E)

  /// The stream has ended; nothing follows.
  case cancelled

  /// The value of a `.data` state, otherwise `nil`.
  public var value: T? {
    if case .data(let value) = self { value } else { nil }
  }

  /// The error of an `.error` state, otherwise `nil`.
  public var error: E? {
    if case .error(let error) = self { error } else { nil }
  }

  /// Whether this is `.cancelled`.
  public var isCancelled: Bool {
    if case .cancelled = self { true } else { false }
  }
}

extension StreamState: Equatable where T: Equatable, E: Equatable {}

extension StreamState: Hashable where T: Hashable, E: Hashable {}

extension StreamState: Sendable where T: Sendable {}

extension StreamState: CustomStringConvertible {
  /// `Data: <value>`, `Error: <error>` or `Cancelled.`, as in Propagate.
  public var description: String {
    switch self {
    case .data(let value): "Data: \(value)"
    case .error(let error): "Error: \(error)"
    case .cancelled: "Cancelled."
    }
  }
}
