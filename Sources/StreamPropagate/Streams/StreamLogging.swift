import FutureKit
import StreamCore

/// Which events a stream object with logging enabled reports; Propagate's `DebugLogLevel`.
///
/// ```swift
/// publisher.enableLogging(logLevel: .pubSubOnly, "login", .external { print($0) })
/// ```
///
/// Events fall into three groups: *life cycle* (a subscriber vended, cancelled or
/// deinitialised, a publisher cancelled or deinitialised), *pub-sub* (a state published or
/// received) and *operators* (an operator applied to a subscriber).
///
/// > Thread safety: A value type; use it from any thread.
public enum StreamLogLevel: Sendable, CaseIterable {
  /// Every event.
  case all

  /// Life cycle and pub-sub events.
  case lifeCyclePlusPubSub

  /// Life cycle and operator events.
  case lifeCyclePlusOperators

  /// Operator events.
  case operatorsOnly

  /// Pub-sub events.
  case pubSubOnly

  /// Life cycle events.
  case lifeCycleOnly

  /// Nothing.
  case none

  func includes(_ category: StreamLogCategory) -> Bool {
    switch (self, category) {
    case (.all, _): true
    case (.lifeCyclePlusPubSub, .lifeCycle), (.lifeCyclePlusPubSub, .pubSub): true
    case (.lifeCyclePlusOperators, .lifeCycle), (.lifeCyclePlusOperators, .operators): true
    case (.operatorsOnly, .operators), (.pubSubOnly, .pubSub), (.lifeCycleOnly, .lifeCycle): true
    default: false
    }
  }
}

/// Receives each log line of a stream object; Propagate's `LoggingHook`.
///
/// It is called on the thread where the event happens, never while a lock is held.
public typealias StreamLoggingHook = @Sendable (String) -> Void

/// Where log lines go; Propagate's `LoggingMethod`.
///
/// ```swift
/// subscriber.enableLogging(logLevel: .all, "search", .external { print("log:", $0) })
/// ```
///
/// > Thread safety: A value type. The hook of ``external(_:)`` is called on the thread where the
/// > event happens, never while a lock is held, and may be called from several threads at once.
public enum StreamLoggingMethod: Sendable {
  /// Hands each line to the hook.
  case external(StreamLoggingHook)

  /// Prints each line with `print`, in debug builds only (compiled with `-D DEBUG`).
  case debugPrint
}

/// A stream object that can log its events; Propagate's `PropagateDebuggable`.
///
/// ```swift
/// let publisher = StreamPublisher<Int, Never>()
///   .enableLogging(logLevel: .lifeCycleOnly, "counter", .debugPrint)
/// ```
///
/// ``StreamPublisher``, ``StatefulStreamPublisher``, ``StreamSubscriber``,
/// ``ValueOnlyStreamSubscriber`` and ``UpdateOnlyStreamSubscriber`` conform.
///
/// > Thread safety: In FutureKit's conforming types, ``enableLogging(logLevel:_:_:)`` may be
/// > called from any thread; events already under way may still use the earlier configuration.
public protocol StreamDebuggable {
  /// Turns on logging for this object, replacing any earlier configuration.
  ///
  /// - Parameters:
  ///   - logLevel: Which events to report.
  ///   - message: A prefix for every line, to tell objects apart.
  ///   - method: Where the lines go.
  /// - Returns: This object, for chaining.
  @discardableResult
  func enableLogging(
    logLevel: StreamLogLevel,
    _ message: String,
    _ method: StreamLoggingMethod
  ) -> Self
}

/// The group an event belongs to.
enum StreamLogCategory: Sendable {
  case lifeCycle
  case pubSub
  case operators
}

/// A logging configuration, copied out of an object's lock before lines are written.
struct StreamLogger: Sendable {
  let level: StreamLogLevel
  let message: String
  let method: StreamLoggingMethod

  /// Writes `text` for `subject` if the level includes `category`.
  func log(
    _ category: StreamLogCategory,
    _ subject: @autoclosure () -> String,
    _ text: @autoclosure () -> String
  ) {
    guard level.includes(category) else { return }
    let line =
      message.isEmpty ? "\(subject()): \(text())" : "[\(message)] \(subject()): \(text())"
    switch method {
    case .external(let hook):
      hook(line)
    case .debugPrint:
      #if DEBUG
      print(line)
      #endif
    }
  }
}

extension Optional where Wrapped == StreamLogger {
  /// Writes `text` if logging is enabled and its level includes `category`.
  func log(
    _ category: StreamLogCategory,
    _ subject: @autoclosure () -> String,
    _ text: @autoclosure () -> String
  ) {
    self?.log(category, subject(), text())
  }
}
