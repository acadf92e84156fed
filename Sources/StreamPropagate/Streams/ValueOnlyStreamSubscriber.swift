public import Dispatch
import FutureKit
public import StreamCore

extension StreamSubscriber {
  /// Returns a stream of this stream's values only: errors are dropped.
  ///
  /// ```swift
  /// let names = users.valueOnly().map(\.name).onNext { print($0) }
  /// ```
  ///
  /// - Returns: A value-only stream that keeps this one alive.
  public func valueOnly() -> ValueOnlyStreamSubscriber<T> {
    let values = derive("valueOnly") { (state, publisher: StreamPublisher<T, Never>) in
      if case .data(let value) = state { publisher.publish(value) }
    }
    return ValueOnlyStreamSubscriber(base: values)
  }
}

/// A stream of values that has no errors; Propagate's `ValueOnlySubscriber<T>`.
///
/// ```swift
/// let subscriber = temperatures.valueOnly()
///   .distinctValues()
///   .onNext { label.text = "\($0)°" }
///   .onCancelled { label.text = "–" }
/// ```
///
/// It behaves as a ``StreamSubscriber`` whose errors are `Never`: held weakly by its source,
/// cancelled on deinit, `.cancelled` terminal, late `onCancelled` called at once. Its
/// `onCancelled` never blocks (Propagate's used `queue.sync` on an already-cancelled stream and
/// deadlocked on its own queue). It is a StreamCore `Publisher` of its values that finishes
/// when the stream is cancelled.
///
/// > Thread safety: As ``StreamSubscriber``.
public final class ValueOnlyStreamSubscriber<T>: Cancellable, StreamDebuggable,
  CustomStringConvertible
{
  /// A callback that receives each value.
  public typealias ValueCallback = (T) -> Void

  /// A callback that runs on cancellation.
  public typealias CancellationCallback = () -> Void

  /// The underlying stream, whose error type is `Never`.
  let base: StreamSubscriber<T, Never>

  /// The private callback queue of the underlying subscriber; for tests.
  package var callbackDispatchQueue: DispatchQueue? {
    base.callbackDispatchQueue
  }

  init(base: StreamSubscriber<T, Never>) {
    self.base = base
  }

  /// Whether the stream has been cancelled.
  public var isCancelled: Bool {
    base.isCancelled
  }

  /// Calls `callback` with each value.
  ///
  /// - Parameters:
  ///   - queue: Where the callback runs, asynchronously; `nil` (the default) means the
  ///     underlying subscriber's private serial queue.
  ///   - callback: Called with each value.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onNext(
    onQueue queue: DispatchQueue? = nil,
    _ callback: @escaping ValueCallback
  )
    -> Self
  {
    base.onNewData(onQueue: queue, perform: callback)
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
    _ callback: @escaping CancellationCallback
  ) -> Self {
    base.onCancelled(onQueue: queue, perform: callback)
    return self
  }

  /// Returns a stream of `transform` applied to each value.
  ///
  /// - Parameter transform: Turns each value into a new one.
  /// - Returns: A stream that keeps this one alive.
  public func map<U>(_ transform: @escaping (T) -> U) -> ValueOnlyStreamSubscriber<U> {
    ValueOnlyStreamSubscriber<U>(base: base.mapValues(transform))
  }

  /// Returns a stream of `transform` applied to each value, skipping the `nil` results.
  ///
  /// - Parameter transform: Turns each value into a new one, or `nil` to skip it.
  /// - Returns: A stream that keeps this one alive.
  public func compactMap<U>(_ transform: @escaping (T) -> U?) -> ValueOnlyStreamSubscriber<U> {
    ValueOnlyStreamSubscriber<U>(base: base.compactMapValues(transform))
  }

  /// Propagate's spelling of ``map(_:)``.
  ///
  /// ```swift
  /// let lengths = names.map(mapping: { $0.count })
  /// ```
  ///
  /// Disfavoured, so that `map { … }` with a trailing closure is ``map(_:)``.
  ///
  /// - Parameter mapping: Turns each value into a new one.
  /// - Returns: A stream that keeps this one alive.
  @_disfavoredOverload
  public func map<U>(mapping: @escaping (T) -> U) -> ValueOnlyStreamSubscriber<U> {
    map(mapping)
  }

  /// Propagate's spelling of ``compactMap(_:)``.
  ///
  /// ```swift
  /// let numbers = texts.compactMap(mapping: { Int($0) })
  /// ```
  ///
  /// Disfavoured, so that `compactMap { … }` with a trailing closure is ``compactMap(_:)``.
  ///
  /// - Parameter mapping: Turns each value into a new one, or `nil` to skip it.
  /// - Returns: A stream that keeps this one alive.
  @_disfavoredOverload
  public func compactMap<U>(mapping: @escaping (T) -> U?) -> ValueOnlyStreamSubscriber<U> {
    compactMap(mapping)
  }

  /// Returns a stream of the non-`nil` values, unwrapped.
  ///
  /// - Returns: A stream that keeps this one alive.
  public func filterNil<Wrapped>() -> ValueOnlyStreamSubscriber<Wrapped> where T == Wrapped? {
    ValueOnlyStreamSubscriber<Wrapped>(base: base.filterNil())
  }

  /// Returns a stream of tuples of the latest value of each source; see
  /// ``StreamSubscriber/combine(_:_:)``. Cancelled when any source is.
  ///
  /// - Parameters:
  ///   - first: The source of the tuple's first element.
  ///   - rest: The sources of the other elements, in order.
  /// - Returns: The combined stream.
  public static func combine<A, each U>(
    _ first: ValueOnlyStreamSubscriber<A>,
    _ rest: repeat ValueOnlyStreamSubscriber<each U>
  ) -> ValueOnlyStreamSubscriber<(A, repeat each U)> where T == (A, repeat each U) {
    ValueOnlyStreamSubscriber(base: combineStreams(first.base, repeat (each rest).base))
  }

  /// Returns a stream of tuples of the latest value of this stream and each of `others`.
  ///
  /// - Parameter others: The sources of the tuple's other elements, in order.
  /// - Returns: The combined stream.
  public func combineWith<each U>(
    _ others: repeat ValueOnlyStreamSubscriber<each U>
  ) -> ValueOnlyStreamSubscriber<(T, repeat each U)> {
    ValueOnlyStreamSubscriber<(T, repeat each U)>(
      base: combineStreams(base, repeat (each others).base)
    )
  }

  /// Returns the same values as a ``StreamSubscriber`` with an error type, which never errs.
  ///
  /// - Returns: A stream that keeps this one alive.
  public func fullSubscriber<E: Error>() -> StreamSubscriber<T, E> {
    base.derive("fullSubscriber") { (state, publisher: StreamPublisher<T, E>) in
      if case .data(let value) = state { publisher.publish(value) }
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

  /// `ValueOnlyStreamSubscriber<T>`, and `(cancelled)` once cancelled.
  public var description: String {
    isCancelled ? "\(type(of: self)) (cancelled)" : "\(type(of: self))"
  }
}

extension ValueOnlyStreamSubscriber where T: Equatable {
  /// Returns a stateful stream that skips a value equal to the previous one; see
  /// ``StreamSubscriber/distinctValues()``.
  ///
  /// - Returns: A stream that keeps this one alive.
  public func distinctValues() -> ValueOnlyStreamSubscriber<T> {
    ValueOnlyStreamSubscriber(base: base.distinctValues())
  }
}

extension ValueOnlyStreamSubscriber: Publisher {
  /// The stream's values.
  public typealias Output = T

  /// It finishes when the stream is cancelled and never fails.
  public typealias Failure = Never

  /// Attaches `subscriber`, which receives the values published from now on; see
  /// ``StreamSubscriber/valuePublisher``.
  ///
  /// - Parameter subscriber: The subscriber to attach.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == T, S.Failure == Never {
    base.valuePublisher.receive(subscriber: subscriber)
  }
}
