public import Dispatch
import PropertyWrappers
import SignalOperators
public import StreamCore

/// The publisher a ``Signal`` or ``TimerSignal`` hands out, with the dispatch queue that the
/// steps after it run on (SwiftySignals' `EndPoint`).
///
/// ```swift
/// let signal = Signal<Int>()
/// let cancellable = signal.fired          // delivers on the main queue, asynchronously
///   .dispatch(qos: .userInitiated)        // or on a new private serial queue
///   .then { print($0) }
///   .sink { _ in }
/// ```
///
/// As in SwiftySignals, a signal's end point delivers on the main queue by default, always
/// asynchronously (even when fired on the main thread), so the closures of `then`, `filter` and
/// `map` after it run there. ``dispatch(to:)`` and ``dispatch(qos:)`` choose another queue,
/// ``noDispatch()`` a new private serial queue that is never main, and ``onFiringThread()``
/// (a StreamKit addition) delivers synchronously on the firing thread. Each of them replaces the
/// queue rather than adding a second hop. Messages keep their firing order on every queue; on
/// Linux the main queue runs only while the program services it (`dispatchMain()`, an async
/// `main`, or a main-actor task).
///
/// > Thread safety: Subscribe from any thread; values are delivered on ``queue``, one at a time,
/// > or on the firing thread when ``queue`` is `nil`.
public struct EndPoint<Message>: Publisher {
  public typealias Output = Message
  public typealias Failure = Never

  /// The source's messages, delivered on the firing thread.
  public let upstream: AnyPublisher<Message, Never>

  /// Where subscribers receive the messages; `nil` means synchronously on the firing thread.
  public let queue: DispatchQueue?

  /// Creates an end point that delivers `upstream`'s messages on `queue`.
  ///
  /// ```swift
  /// let endPoint = EndPoint(upstream: subject.eraseToAnyPublisher(), queue: .main)
  /// ```
  ///
  /// > Thread safety: The end point is a value; subscribe to it from any thread.
  ///
  /// - Parameters:
  ///   - upstream: The source's messages.
  ///   - queue: Where to deliver them; `nil` delivers on the firing thread.
  public init(upstream: AnyPublisher<Message, Never>, queue: DispatchQueue?) {
    self.upstream = upstream
    self.queue = queue
  }

  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Message, S.Failure == Never {
    if let queue {
      upstream.receive(on: queue).receive(subscriber: subscriber)
    } else {
      upstream.receive(subscriber: subscriber)
    }
  }

  /// The same messages, delivered asynchronously on `queue` instead (SwiftySignals'
  /// `dispatch(to:)`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.dispatch(to: worker).then { process($0) }.sink { _ in }
  /// ```
  ///
  /// > Thread safety: Later steps run on `queue`, one message at a time.
  ///
  /// - Parameter queue: The queue to deliver on.
  /// - Returns: An end point that delivers on `queue`.
  public func dispatch(to queue: DispatchQueue) -> EndPoint {
    EndPoint(upstream: upstream, queue: queue)
  }

  /// The same messages, delivered on a new private serial queue with the given quality of
  /// service (SwiftySignals' `dispatch(qos:)`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.dispatch(qos: .utility).then { save($0) }.sink { _ in }
  /// ```
  ///
  /// Each call makes its own serial queue, as SwiftySignals does (its README says "a global
  /// queue", which its code does not do).
  ///
  /// > Thread safety: Later steps run on the new queue, one message at a time.
  ///
  /// - Parameter qos: The quality of service of the new queue.
  /// - Returns: An end point that delivers on the new queue.
  public func dispatch(qos: DispatchQoS = .default) -> EndPoint {
    EndPoint(upstream: upstream, queue: DispatchQueue(label: "StreamKit.dispatch", qos: qos))
  }

  /// The same messages, delivered on a new private serial queue, never the main queue
  /// (SwiftySignals' `noDispatch()`, which runs closures on the modifier's own serial queue).
  ///
  /// ```swift
  /// let cancellable = signal.fired.noDispatch().then { log($0) }.sink { _ in }
  /// ```
  ///
  /// > Thread safety: Later steps run on the new queue, one message at a time.
  ///
  /// - Returns: An end point that delivers on a new private serial queue.
  public func noDispatch() -> EndPoint {
    EndPoint(upstream: upstream, queue: DispatchQueue(label: "StreamKit.noDispatch"))
  }

  /// The same messages, delivered synchronously on the thread that fires them (a StreamKit
  /// addition; SwiftySignals always dispatched).
  ///
  /// ```swift
  /// let cancellable = signal.fired.onFiringThread().sink { print($0) }
  /// signal.fire(1)  // printed before `fire` returns
  /// ```
  ///
  /// > Thread safety: Later steps run on the firing thread, one message at a time.
  ///
  /// - Returns: An end point that delivers on the firing thread.
  public func onFiringThread() -> EndPoint {
    EndPoint(upstream: upstream, queue: nil)
  }
}
