import SignalOperators
import StreamCore

/// One thing a publisher can send: a value, a failure or the finish, as a value of its own.
///
/// ```swift
/// let events: [MaterializedEvent<Int, TestError>] = [.value(1), .failure(TestError())]
/// ```
///
/// `materialize()` turns a publisher's values and its completion into events, so that a failure
/// arrives as an ordinary value; `dematerialize()` turns them back. This is CombineExt's
/// `Event`, with its cases; it is renamed because PropertyWrappers' `@Event` already has that
/// name, and code importing both modules would no longer compile.
///
/// > Thread safety: A value type; `Sendable` when `Output` and `Failure` are.
public enum MaterializedEvent<Output, Failure: Error> {
  /// A value the publisher sent.
  case value(Output)

  /// The failure the publisher ended with.
  case failure(Failure)

  /// The publisher finished normally.
  case finished
}

extension MaterializedEvent: Sendable where Output: Sendable, Failure: Sendable {}

extension MaterializedEvent: Equatable where Output: Equatable, Failure: Equatable {
  /// Whether two events are the same case with equal payloads.
  ///
  /// ```swift
  /// MaterializedEvent<Int, TestError>.value(1) == .value(1)  // true
  /// ```
  ///
  /// - Parameters:
  ///   - lhs: An event.
  ///   - rhs: Another event.
  /// - Returns: `true` when both are `.finished`, or the same case with equal payloads.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.value(let left), .value(let right)): left == right
    case (.failure(let left), .failure(let right)): left == right
    case (.finished, .finished): true
    default: false
    }
  }
}

extension MaterializedEvent: CustomStringConvertible {
  /// `value(…)`, `failure(…)` or `finished`.
  ///
  /// ```swift
  /// print(MaterializedEvent<Int, Never>.value(3))  // value(3)
  /// ```
  public var description: String {
    switch self {
    case .value(let value): "value(\(value))"
    case .failure(let failure): "failure(\(failure))"
    case .finished: "finished"
    }
  }
}

/// A type that can be read as an ``MaterializedEvent``; what `dematerialize()`, `values()` and `failures()`
/// accept.
///
/// ```swift
/// func isEnd(_ item: some EventConvertible) -> Bool {
///   if case .value = item.event { return false }
///   return true
/// }
/// ```
///
/// ``MaterializedEvent`` conforms, as in CombineExt; conform your own wrapper to feed it to those operators.
///
/// > Thread safety: `event` is read on the thread that delivers the item.
public protocol EventConvertible {
  /// The type of a value event.
  associatedtype Output

  /// The type of a failure event.
  associatedtype Failure: Error

  /// This item as an event.
  var event: MaterializedEvent<Output, Failure> { get }
}

extension MaterializedEvent: EventConvertible {
  /// The event itself.
  ///
  /// ```swift
  /// MaterializedEvent<Int, Never>.finished.event  // .finished
  /// ```
  public var event: MaterializedEvent<Output, Failure> { self }
}

/// CombineExt's name for a materialized event: ``MaterializedEvent``.
///
/// ```swift
/// let events: [Event<Int, Never>] = [.value(1), .finished]
/// ```
///
/// Shuttle's `@Event` wrapper (in `StreamShuttle`) has the same name; a file that imports both
/// modules writes `StreamCombineExt.Event` or `MaterializedEvent`.
///
/// > Thread safety: The same as ``MaterializedEvent``.
public typealias Event<Output, Failure: Error> = MaterializedEvent<Output, Failure>
