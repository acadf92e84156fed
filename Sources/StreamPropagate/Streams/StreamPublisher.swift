import FutureKit
import StreamCore

/// The source of a Propagate-style stream: it publishes values, errors and cancellation to the
/// subscribers it vends. Propagate's `Publisher<T, E>`.
///
/// ```swift
/// func loginStates() -> StreamSubscriber<Login?, LoginError> {
///   let publisher = StreamPublisher<Login?, LoginError>()
///   listener.listen { result in publisher.publishState(forResult: result) }
///   return publisher.subscriber()
/// }
/// ```
///
/// - ``subscriber()`` vends a new ``StreamSubscriber`` on every call. The publisher holds its
///   subscribers **weakly**: keep a reference to each subscriber you use (or
///   `store(in: &cancellables)` it); one that nobody keeps is cancelled and released.
/// - ``publish(_:)-(T)`` and ``publish(_:)-(E)`` send a state to every current subscriber. An
///   error does not end the stream. A plain publisher replays nothing to later subscribers; see
///   ``StatefulStreamPublisher``.
/// - ``cancelAll()`` sends `.cancelled`, which is terminal: later publishes do nothing, and
///   subscribers vended afterwards are already cancelled. Deinitialising the publisher cancels
///   its subscribers too.
///
/// > Thread safety: Every method may be called from any thread. A state is handed to the
/// > subscribers synchronously, on the publishing thread (their callbacks then run on their
/// > queues, or there if registered ``CallbackDelivery/synchronously``), unless another delivery from this publisher is
/// > under way: then it is queued and the thread already delivering sends it right after, so
/// > `publish` never waits for another thread's callbacks. Every subscriber sees the states in
/// > the same order. A state published from inside a callback is delivered once the current
/// > state has reached every subscriber, so re-entrant publishing never recurses or deadlocks.
/// > No lock is held while callbacks run.
// Sendable: every mutable property is guarded by `lock`; subscribers are called after it.
public class StreamPublisher<T, E: Error>: @unchecked Sendable, StreamDebuggable,
  CustomStringConvertible
{
  /// The state type of this stream.
  public typealias State = StreamState<T, E>

  /// What ``enqueue(_:)`` decided; the caller acts on it with ``finish(_:_:)`` after releasing
  /// any lock of its own.
  struct Enqueued {
    let accepted: Bool
    let drains: Bool
    let logger: StreamLogger?
  }

  let lock = Lock()
  private var subscribers: [WeakStreamSubscriber<T, E>] = []
  /// States waiting for the thread that is delivering.
  private var backlog = RingBuffer<State>()
  /// Claimed by the thread that delivers the backlog.
  private var delivery = SerialDrain()
  private var cancelled = false
  /// The latest state published, and the latest value; kept by stateful publishers only.
  private(set) var latestPublished: State?
  private(set) var latestValue: T?
  /// The latest state handed to subscribers, which seeds a stateful publisher's new subscribers.
  private var latestDelivered: State?
  /// Whether subscribers replay the latest state to each new callback.
  let keepsState: Bool
  private var logger: StreamLogger?

  /// Creates a publisher with no subscribers.
  public convenience init() {
    self.init(keepsState: false)
  }

  init(keepsState: Bool) {
    self.keepsState = keepsState
  }

  deinit {
    let (targets, logger) = lock.withLock { () -> ([StreamSubscriber<T, E>], StreamLogger?) in
      guard !cancelled else { return ([], self.logger) }
      cancelled = true
      defer { subscribers = [] }
      return (subscribers.compactMap { $0.value }, self.logger)
    }
    logger.log(.lifeCycle, description, "deinit")
    for subscriber in targets {
      subscriber.receive(.cancelled)
    }
  }

  /// Whether ``cancelAll()`` has been called; nothing is published afterwards.
  public var isCancelled: Bool {
    lock.withLock { cancelled }
  }

  /// Returns a new subscriber to this publisher; each call makes another one.
  ///
  /// The publisher holds it weakly. A subscriber vended after ``cancelAll()`` is already
  /// cancelled; one vended by a ``StatefulStreamPublisher`` replays the latest state.
  ///
  /// - Returns: A subscriber that receives every state published from now on.
  public func subscriber() -> StreamSubscriber<T, E> {
    makeSubscriber(retaining: [], logger: nil)
  }

  /// Vends a subscriber that keeps `retaining` alive and logs with `inherited`.
  func makeSubscriber(
    retaining: [AnyObject],
    logger inherited: StreamLogger?
  )
    -> StreamSubscriber<T, E>
  {
    let (subscriber, logger) = lock.withLock { () -> (StreamSubscriber<T, E>, StreamLogger?) in
      let subscriber = StreamSubscriber(
        publisher: self,
        keepsState: keepsState,
        seed: latestDelivered,
        cancelled: cancelled,
        retaining: retaining,
        logger: inherited
      )
      if !cancelled {
        subscribers.append(WeakStreamSubscriber(value: subscriber))
      }
      return (subscriber, self.logger)
    }
    logger.log(.lifeCycle, description, "vended \(subscriber)")
    return subscriber
  }

  /// Sends `.data(value)` to every subscriber.
  ///
  /// - Parameter value: The value to publish.
  public func publish(_ value: T) {
    publishState(.data(value))
  }

  /// Sends `.error(error)` to every subscriber; the stream goes on.
  ///
  /// - Parameter error: The error to publish.
  public func publish(_ error: E) {
    publishState(.error(error))
  }

  /// Publishes the value or the error of `result`.
  ///
  /// - Parameter result: The result to publish.
  public func publishState(forResult result: Result<T, E>) {
    switch result {
    case .success(let value): publishState(.data(value))
    case .failure(let error): publishState(.error(error))
    }
  }

  /// Publishes `state`; `.cancelled` is the same as ``cancelAll()``.
  ///
  /// - Parameter state: The state to publish.
  public func publishState(_ state: State) {
    finish(enqueue(state), state)
  }

  /// Sends `.cancelled` to every subscriber and ends the stream; only the first call acts.
  public func cancelAll() {
    publishState(.cancelled)
  }

  /// Queues `state` under the lock, without calling out.
  func enqueue(_ state: State) -> Enqueued {
    var replacedState: State?
    var replacedValue: T?
    defer {
      _ = replacedState.take()  // released after the lock
      _ = replacedValue.take()
    }
    return lock.withLock {
      guard !cancelled else { return Enqueued(accepted: false, drains: false, logger: nil) }
      if case .cancelled = state { cancelled = true }
      if keepsState {
        replacedState = latestPublished
        latestPublished = state
        if case .data(let value) = state {
          replacedValue = latestValue
          latestValue = value
        }
      }
      backlog.append(state)
      let drains = delivery.claim()
      return Enqueued(accepted: true, drains: drains, logger: logger)
    }
  }

  /// Logs an accepted state and, if this thread must deliver, delivers the backlog.
  func finish(_ enqueued: Enqueued, _ state: State) {
    guard enqueued.accepted else { return }
    if case .cancelled = state {
      enqueued.logger.log(.lifeCycle, description, "cancelled all subscribers")
    } else {
      enqueued.logger.log(.pubSub, description, "publishing \(state)")
    }
    if enqueued.drains { drain() }
  }

  /// Delivers queued states one at a time until none is left: `SerialDrain.run` over `backlog`.
  private func drain() {
    // `next` returns the state and fills these, rather than returning a tuple or a struct,
    // whose generic metadata the runtime would look up on every call.
    var targets: [StreamSubscriber<T, E>] = []
    var replaced: State?
    SerialDrain.run(lock) { () -> State? in
      guard let next = backlog.popFirst() else {
        delivery.release()
        return nil
      }
      if keepsState {
        replaced = latestDelivered
        latestDelivered = next
      }
      // `targets` keeps the strong references read here until after the lock (see `remove`).
      targets = subscribers.compactMap { $0.value }
      if targets.count < subscribers.count {
        let alive = Set(targets.map(ObjectIdentifier.init))
        subscribers.removeAll { !alive.contains($0.id) }
      }
      if case .cancelled = next { subscribers = [] }
      return next
    } perform: { state in
      _ = replaced.take()  // released after the lock
      for subscriber in targets {
        subscriber.receive(state)
      }
      targets = []
      return true
    }  // the state delivered is released at the end of `perform`, outside the lock
  }

  /// Forgets the subscriber with identity `id`, without reading any weak reference.
  ///
  /// Reading a weak reference makes a strong one. Under the lock, that strong reference could
  /// become a subscriber's last one, if another thread dropped the others meanwhile; releasing it
  /// would then run the subscriber's deinit, which calls this method, inside the lock (seen as a
  /// "Recursive call to lock Mutex" crash). Released subscribers are pruned by `drain()`, which
  /// keeps the strong references it reads until after the lock.
  func remove(_ id: ObjectIdentifier) {
    lock.withLock {
      subscribers.removeAll { $0.id == id }
    }
  }

  /// Turns on logging for this publisher, replacing any earlier configuration.
  ///
  /// ```swift
  /// publisher.enableLogging(logLevel: .pubSubOnly, "login", .external { log.debug($0) })
  /// ```
  ///
  /// - Parameters:
  ///   - logLevel: Which events to report; all of them by default.
  ///   - message: A prefix for every line.
  ///   - method: Where the lines go; `print` in debug builds by default.
  /// - Returns: This publisher, for chaining.
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

  /// The type, such as `StreamPublisher<Int, LoadError>`, and `(cancelled)` once cancelled.
  public var description: String {
    isCancelled ? "\(type(of: self)) (cancelled)" : "\(type(of: self))"
  }
}

extension StreamPublisher where T == Void {
  /// Publishes `.data(())`: a signal with no value.
  public func kick() {
    publish(())
  }
}

/// A weak reference to a subscriber, so that a publisher doesn't keep its subscribers alive.
struct WeakStreamSubscriber<T, E: Error> {
  weak var value: StreamSubscriber<T, E>?
  /// The subscriber's identity, comparable without loading `value`.
  let id: ObjectIdentifier

  init(value: StreamSubscriber<T, E>) {
    self.value = value
    id = ObjectIdentifier(value)
  }
}
