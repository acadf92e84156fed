public import Dispatch
import FutureKit
public import StreamCore

extension StreamSubscriber {
  /// Returns a stream that only says "something changed": on each value, and on each error
  /// too when `includeErrors` is `true`.
  ///
  /// ```swift
  /// let token = settings.didUpdate().subscribe { tableView.reloadData() }
  /// ```
  ///
  /// - Parameter includeErrors: Whether errors count as updates; `false` by default.
  /// - Returns: An update-only stream that keeps this one alive.
  public func didUpdate(includeErrors: Bool = false) -> UpdateOnlyStreamSubscriber {
    let updates = derive("didUpdate") { (state, publisher: StreamPublisher<Void, Never>) in
      switch state {
      case .data: publisher.kick()
      case .error: if includeErrors { publisher.kick() }
      case .cancelled: publisher.cancelAll()
      }
    }
    return UpdateOnlyStreamSubscriber(base: updates)
  }
}

/// A stream of updates without values; Propagate's `UpdateOnlySubscriber`.
///
/// ```swift
/// let subscriber = model.changes.didUpdate(includeErrors: true)
///   .subscribe { refresh() }
///   .onCancelled { close() }
/// ```
///
/// It behaves as a ``StreamSubscriber`` of `Void` values: held weakly by its source, cancelled
/// on deinit, `.cancelled` terminal. It is a StreamCore `Publisher` of `Void` that finishes
/// when the stream is cancelled.
///
/// > Thread safety: As ``StreamSubscriber``.
public final class UpdateOnlyStreamSubscriber: Cancellable, StreamDebuggable,
  CustomStringConvertible
{
  /// The underlying stream.
  let base: StreamSubscriber<Void, Never>

  /// The private callback queue of the underlying subscriber; for tests.
  package var callbackDispatchQueue: DispatchQueue? {
    base.callbackDispatchQueue
  }

  init(base: StreamSubscriber<Void, Never>) {
    self.base = base
  }

  /// Whether the stream has been cancelled.
  public var isCancelled: Bool {
    base.isCancelled
  }

  /// Calls `callback` on each update.
  ///
  /// - Parameters:
  ///   - queue: Where the callback runs, asynchronously; `nil` (the default) means the
  ///     underlying subscriber's private serial queue.
  ///   - callback: Called on each update.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func subscribe(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping () -> Void
  )
    -> Self
  {
    base.onNewData(onQueue: queue) { callback() }
    return self
  }

  /// Calls `callback` once, when the stream is cancelled; at once if it already is.
  ///
  /// - Parameters:
  ///   - queue: Where the callback runs, asynchronously; `nil` (the default) means the
  ///     underlying subscriber's private serial queue.
  ///   - callback: Called on cancellation.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onCancelled(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping () -> Void
  )
    -> Self
  {
    base.onCancelled(onQueue: queue, perform: callback)
    return self
  }

  /// Returns the updates as a ``StreamSubscriber`` of `Void` with an error type, which never
  /// errs.
  ///
  /// - Returns: A stream that keeps this one alive.
  public func fullSubscriber<E: Error>() -> StreamSubscriber<Void, E> {
    base.derive("fullSubscriber") { (state, publisher: StreamPublisher<Void, E>) in
      if case .data = state { publisher.kick() }
    }
  }

  /// Cancels the stream; idempotent. See ``StreamSubscriber/cancel()``.
  public func cancel() {
    base.cancel()
  }

  /// Turns on logging; see ``StreamSubscriber/enableLogging(logLevel:_:_:)``.
  ///
  /// - Parameters:
  ///   - logLevel: Which events to report; all of them by default.
  ///   - message: A prefix for every line.
  ///   - method: Where the lines go; `print` in debug builds by default.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func enableLogging(
    logLevel: StreamLogLevel = .all,
    _ message: String = "",
    _ method: StreamLoggingMethod = .debugPrint
  ) -> Self {
    base.enableLogging(logLevel: logLevel, message, method)
    return self
  }

  /// `UpdateOnlyStreamSubscriber`, and `(cancelled)` once cancelled.
  public var description: String {
    isCancelled ? "UpdateOnlyStreamSubscriber (cancelled)" : "UpdateOnlyStreamSubscriber"
  }
}

extension UpdateOnlyStreamSubscriber: Publisher {
  /// One `()` per update.
  public typealias Output = Void

  /// It finishes when the stream is cancelled and never fails.
  public typealias Failure = Never

  /// Attaches `subscriber`, which receives the updates published from now on.
  ///
  /// - Parameter subscriber: The subscriber to attach.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
    base.valuePublisher.receive(subscriber: subscriber)
  }
}
