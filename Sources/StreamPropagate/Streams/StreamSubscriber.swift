public import Dispatch
import FutureKit
public import StreamCore

/// The observing end of a Propagate-style stream: register callbacks for its states, or derive
/// new streams with operators. Propagate's `Subscriber<T, E>`.
///
/// ```swift
/// let subscriber = loginManager.loginStates()
///   .onNewData { login in login == nil ? showLogin() : showHome() }
///   .onError { showAlert(for: $0) }
///   .onCancelled { resubscribe() }
/// ```
///
/// - Subscribers come from ``StreamPublisher/subscriber()`` and from operators. The publisher
///   holds them **weakly**: keep a reference (or `store(in: &cancellables)`), or the subscriber
///   is deinitialised, which cancels it (its `onCancelled` callbacks still run).
/// - Each registration returns the subscriber, so calls chain. Callbacks run in registration
///   order for each state. `.error` does not end the stream.
/// - As in Propagate, no callback runs inside `publish`: without a queue, callbacks run
///   asynchronously on the subscriber's own private serial queue, each state to every callback
///   in registration order before the next state; with `onQueue:` they run on that queue. For
///   synchronous delivery on the publishing thread, register with
///   ``CallbackDelivery/synchronously`` (``onNewData(_:perform:)`` and its siblings).
/// - `.cancelled` is terminal: the callbacks receive it, then they are dropped and later states
///   are ignored. A callback registered after that is called at once, synchronously, with
///   `.cancelled`, and not kept.
/// - A subscriber of a stateful stream (``StatefulStreamPublisher``, ``stateful()``,
///   ``startWith(_:)``, ``of(_:)-(T)``, ``distinctValues()``, ``distinctStates()``, and any
///   stream derived from a stateful one) calls each new callback with the latest state first,
///   synchronously on the registering thread, once per registration, also when it is given a
///   queue (as Propagate did); later states follow on the callback's queue.
/// - ``cancel()`` (an addition: Propagate's is internal) ends it early. As a
///   `StreamCore.Cancellable` it can be stored with `store(in:)`.
/// - It is also a StreamCore `Publisher` of its states, with `Failure == Never`; see
///   `StreamSubscriber+Publisher.swift`.
///
/// > Thread safety: Registration and ``cancel()`` may be called from any thread. A callback
/// > without a queue runs on the subscriber's private serial queue; one with `onQueue:` on that
/// > queue; one registered ``CallbackDelivery/synchronously`` on the thread that publishes. A
/// > replay or a late `.cancelled` runs on the registering thread. A callback is never called
/// > twice at once, never re-entrantly, and sees states in publish order. No lock is held while callbacks run. Callbacks needn't be `Sendable`: like
/// > a `Sink`'s closures, each is called for one state at a time.
// Sendable: every mutable property is guarded by `lock`; callbacks are called after it, one state
// at a time (`StreamCallback`).
public final class StreamSubscriber<T, E: Error>: Cancellable, @unchecked Sendable,
  StreamDebuggable,
  CustomStringConvertible
{
  /// The state type of this stream.
  public typealias State = StreamState<T, E>

  /// A callback that receives every state.
  public typealias Callback = (State) -> Void

  private enum Registration {
    case stored
    case replay
    case cancelled
  }

  /// Where a callback runs.
  enum CallbackMode {
    /// On the publishing thread.
    case inline
    /// Asynchronously on this queue.
    case queue(DispatchQueue)
    /// On the subscriber's private serial queue.
    case privateQueue
  }

  private let lock = Lock()
  private var callbacks = ContiguousArray<StreamCallback<T, E>>()
  /// Made by the first callback registered without a queue; never changes after that.
  private var privateQueue: DispatchQueue?
  private var cancelled: Bool
  private var lastState: State?
  private var logger: StreamLogger?
  /// Whether each new callback gets the latest state first.
  let keepsState: Bool
  /// Set once, in `init`; only read afterwards.
  private weak var publisher: StreamPublisher<T, E>?
  /// Upstream subscribers (or a publisher) this stream keeps alive; never changes.
  private let retained: [AnyObject]

  init(
    publisher: StreamPublisher<T, E>,
    keepsState: Bool,
    seed: State?,
    cancelled: Bool,
    retaining: [AnyObject],
    logger: StreamLogger?
  ) {
    self.publisher = publisher
    self.keepsState = keepsState
    self.lastState = keepsState ? seed : nil
    self.cancelled = cancelled
    self.retained = retaining
    self.logger = logger
  }

  deinit {
    let (taken, logger) = lock.withLock {
      () -> (ContiguousArray<StreamCallback<T, E>>, StreamLogger?) in
      defer { callbacks = [] }
      guard !cancelled else { return ([], self.logger) }
      cancelled = true
      return (callbacks, self.logger)
    }
    logger.log(.lifeCycle, "\(type(of: self))", "deinit")
    publisher?.remove(ObjectIdentifier(self))
    for callback in taken {
      callback.offer(.cancelled)
    }
  }

  /// Whether the stream has been cancelled; nothing is delivered afterwards.
  public var isCancelled: Bool {
    lock.withLock { cancelled }
  }

  // MARK: Registration

  /// Calls `callback` with every state: values, errors and the final `.cancelled`.
  ///
  /// ```swift
  /// subscriber.subscribe { state in
  ///   switch state {
  ///   case .data(let value): show(value)
  ///   case .error(let error): warn(error)
  ///   case .cancelled: close()
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - queue: Where the callback runs, asynchronously; `nil` (the default) means the
  ///     subscriber's private serial queue.
  ///   - callback: Called with each state.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func subscribe(
    onQueue queue: DispatchQueue? = nil,
    performing callback: @escaping (State) -> Void
  ) -> Self {
    _ = addCallback(mode(queue), callback)
    return self
  }

  /// Calls `callback` with every state on the main queue, asynchronously.
  ///
  /// - Parameter callback: Called with each state.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func subscribeOnMain(performing callback: @escaping (State) -> Void) -> Self {
    subscribe(onQueue: .main, performing: callback)
  }

  /// Calls `callback` with each value.
  ///
  /// ```swift
  /// subscriber.onNewData { print("value", $0) }
  /// ```
  ///
  /// - Parameters:
  ///   - queue: Where the callback runs, asynchronously; `nil` (the default) means the
  ///     subscriber's private serial queue.
  ///   - callback: Called with each value.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onNewData(
    onQueue queue: DispatchQueue? = nil,
    perform callback: @escaping (T) -> Void
  ) -> Self {
    _ = addCallback(mode(queue)) { state in
      if case .data(let value) = state { callback(value) }
    }
    return self
  }

  /// Calls `callback` with each error; errors don't end the stream.
  ///
  /// - Parameters:
  ///   - queue: Where the callback runs, asynchronously; `nil` (the default) means the
  ///     subscriber's private serial queue.
  ///   - callback: Called with each error.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onError(
    onQueue queue: DispatchQueue? = nil,
    perform callback: @escaping (E) -> Void
  ) -> Self {
    _ = addCallback(mode(queue)) { state in
      if case .error(let error) = state { callback(error) }
    }
    return self
  }

  /// Calls `callback` once, when the stream is cancelled; at once if it already is.
  ///
  /// - Parameters:
  ///   - queue: Where the callback runs, asynchronously; `nil` (the default) means the
  ///     subscriber's private serial queue.
  ///   - callback: Called on cancellation.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onCancelled(
    onQueue queue: DispatchQueue? = nil,
    perform callback: @escaping () -> Void
  ) -> Self {
    _ = addCallback(mode(queue)) { state in
      if case .cancelled = state { callback() }
    }
    return self
  }

  /// Publishes every state this subscriber receives into `publisher`, `.cancelled` included
  /// (which cancels `publisher`). The binding keeps `publisher` alive as long as this subscriber.
  ///
  /// ```swift
  /// remoteUpdates.subscriber().bindTo(localPublisher)
  /// ```
  ///
  /// - Parameter publisher: The publisher that republishes the states.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func bindTo(_ publisher: StreamPublisher<T, E>) -> Self {
    _ = addCallback(.inline) { state in publisher.publishState(state) }
    return self
  }

  /// Cancels this subscriber: it leaves its publisher, its callbacks receive `.cancelled`, and
  /// it delivers nothing more. Idempotent.
  ///
  /// Propagate keeps `cancel()` internal (a subscriber ends when it is released); StreamKit
  /// makes it public, which also makes the subscriber a `StreamCore.Cancellable`.
  public func cancel() {
    publisher?.remove(ObjectIdentifier(self))
    receive(.cancelled)
  }

  // MARK: Internals

  /// The mode of a public registration given `queue`.
  private func mode(_ queue: DispatchQueue?) -> CallbackMode {
    queue.map { .queue($0) } ?? .privateQueue
  }

  /// The private serial queue, made on first use.
  private func privateDispatchQueue() -> DispatchQueue {
    lock.withLock {
      if let privateQueue { return privateQueue }
      let made = DispatchQueue(label: "StreamKit.StreamSubscriber.callbacks")
      privateQueue = made
      return made
    }
  }

  /// The private serial queue of the callbacks registered without a queue; for tests, which
  /// wait on it until those callbacks have run. `nil` until the first such callback.
  package var callbackDispatchQueue: DispatchQueue? {
    lock.withLock { privateQueue }
  }

  /// Registers `body`; replays the latest state or reports cancellation synchronously.
  func addCallback(
    _ mode: CallbackMode,
    _ body: @escaping (State) -> Void
  )
    -> StreamCallback<T, E>
  {
    let delivery: StreamCallback<T, E>.Delivery
    switch mode {
    case .inline: delivery = .inline
    case .queue(let queue): delivery = .queue(queue)
    case .privateQueue: delivery = .serial(privateDispatchQueue())
    }
    let callback = StreamCallback(delivery: delivery, body: body)
    let registration = lock.withLock { () -> Registration in
      guard !cancelled else { return .cancelled }
      callbacks.append(callback)
      guard keepsState, let lastState else { return .stored }
      callback.prime(lastState)
      return .replay
    }
    switch registration {
    case .stored: break
    case .replay: callback.start()
    case .cancelled: callback.runNow(.cancelled)
    }
    return callback
  }

  /// Unregisters `callback`; it receives nothing more.
  func removeCallback(_ callback: StreamCallback<T, E>) {
    let removed = lock.withLock { () -> StreamCallback<T, E>? in
      guard let index = callbacks.firstIndex(where: { $0 === callback }) else { return nil }
      return callbacks.remove(at: index)
    }
    _ = removed  // released after the lock
  }

  /// Delivers `state` from the publisher to every callback.
  func receive(_ state: State) {
    var replaced: State?
    var targets = ContiguousArray<StreamCallback<T, E>>()
    var logger: StreamLogger?
    let delivers = lock.withLock { () -> Bool in
      guard !cancelled else { return false }
      if keepsState {
        replaced = lastState
        lastState = state
      }
      targets = callbacks
      logger = self.logger
      if case .cancelled = state {
        cancelled = true
        callbacks = []
      }
      return true
    }
    _ = replaced  // released after the lock
    guard delivers else { return }
    if case .cancelled = state {
      logger.log(.lifeCycle, description, "cancelled")
    } else {
      logger.log(.pubSub, description, "received \(state)")
    }
    for callback in targets {
      callback.offer(state)
    }
  }

  /// Makes a stream fed by this one: `forward` turns each value or error into states of the new
  /// stream; `.cancelled` always cancels it. The new subscriber keeps this one alive. It is
  /// stateful if `keepsState` is set or this stream is stateful.
  func derive<T2, E2>(
    _ name: String,
    keepsState: Bool = false,
    seed: StreamState<T2, E2>? = nil,
    _ forward: @escaping (State, StreamPublisher<T2, E2>) -> Void
  ) -> StreamSubscriber<T2, E2> {
    let publisher = StreamPublisher<T2, E2>(keepsState: keepsState || self.keepsState)
    if let seed { publisher.publishState(seed) }
    let logger = lock.withLock { self.logger }
    let derived = publisher.makeSubscriber(retaining: [self], logger: logger)
    logger.log(.operators, description, "\(name) -> \(derived)")
    _ = addCallback(.inline) { state in
      if case .cancelled = state {
        publisher.cancelAll()
      } else {
        forward(state, publisher)
      }
    }
    return derived
  }

  /// Turns on logging for this subscriber, replacing any earlier configuration. Streams derived
  /// from it afterwards log with the same configuration.
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
    var logger: StreamLogger? = StreamLogger(level: logLevel, message: message, method: method)
    lock.withLock { swap(&logger, &self.logger) }
    _ = logger  // the replaced logger, and its hook, are released after the lock
    return self
  }

  /// The type, such as `StreamSubscriber<Int, LoadError>`, and `(cancelled)` once cancelled.
  public var description: String {
    isCancelled ? "\(type(of: self)) (cancelled)" : "\(type(of: self))"
  }
}

// MARK: - Synchronous registration

extension StreamSubscriber {
  /// The synchronous counterpart of a registration.
  private func inlineMode(_ delivery: CallbackDelivery) -> CallbackMode {
    switch delivery {
    case .synchronously: .inline
    }
  }

  /// Calls `callback` with every state, synchronously on the publishing thread.
  ///
  /// ```swift
  /// subscriber.subscribe(.synchronously) { state in log.append(state) }
  /// publisher.publish(1)  // the callback has run
  /// ```
  ///
  /// Propagate had no synchronous delivery; ``subscribe(onQueue:performing:)`` is its
  /// asynchronous behaviour.
  ///
  /// > Thread safety: May be called from any thread. The callback runs on whichever thread
  /// > publishes, one state at a time (a state published meanwhile waits), never under a lock.
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called with each state.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func subscribe(
    _ delivery: CallbackDelivery,
    performing callback: @escaping (State) -> Void
  ) -> Self {
    _ = addCallback(inlineMode(delivery), callback)
    return self
  }

  /// Calls `callback` with each value, synchronously on the publishing thread.
  ///
  /// ```swift
  /// subscriber.onNewData(.synchronously) { total += $0 }
  /// ```
  ///
  /// > Thread safety: As ``subscribe(_:performing:)``.
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called with each value.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onNewData(
    _ delivery: CallbackDelivery,
    perform callback: @escaping (T) -> Void
  )
    -> Self
  {
    _ = addCallback(inlineMode(delivery)) { state in
      if case .data(let value) = state { callback(value) }
    }
    return self
  }

  /// Calls `callback` with each error, synchronously on the publishing thread.
  ///
  /// ```swift
  /// subscriber.onError(.synchronously) { failures.append($0) }
  /// ```
  ///
  /// > Thread safety: As ``subscribe(_:performing:)``.
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called with each error.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onError(
    _ delivery: CallbackDelivery,
    perform callback: @escaping (E) -> Void
  )
    -> Self
  {
    _ = addCallback(inlineMode(delivery)) { state in
      if case .error(let error) = state { callback(error) }
    }
    return self
  }

  /// Calls `callback` once, synchronously on the cancelling thread, when the stream is
  /// cancelled; at once if it already is.
  ///
  /// ```swift
  /// subscriber.onCancelled(.synchronously) { isOpen = false }
  /// ```
  ///
  /// > Thread safety: As ``subscribe(_:performing:)``.
  ///
  /// - Parameters:
  ///   - delivery: ``CallbackDelivery/synchronously``.
  ///   - callback: Called on cancellation.
  /// - Returns: This subscriber, for chaining.
  @discardableResult
  public func onCancelled(
    _ delivery: CallbackDelivery,
    perform callback: @escaping () -> Void
  )
    -> Self
  {
    _ = addCallback(inlineMode(delivery)) { state in
      if case .cancelled = state { callback() }
    }
    return self
  }
}
