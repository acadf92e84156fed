public import Dispatch
import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Delivers values, completion and everything after this point on `queue` (SwiftySignals'
  /// `dispatch(to:)`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.dispatch(to: .main).then { label.text = $0 }.sink { _ in }
  /// ```
  ///
  /// It is `receive(on: queue)`, asynchronous, and it moves every later step, not only user
  /// closures. On a ``Signal``'s or ``TimerSignal``'s ``EndPoint`` it replaces the end point's
  /// queue (main by default) rather than adding a hop.
  ///
  /// > Thread safety: Later steps run on `queue`, one event at a time.
  ///
  /// - Parameter queue: The queue to deliver on.
  /// - Returns: A publisher that delivers on `queue`.
  public func dispatch(to queue: DispatchQueue) -> Publishers.ReceiveOn<Self, DispatchQueue> {
    receive(on: queue)
  }

  /// Delivers on a new private serial queue with the given quality of service (SwiftySignals'
  /// `dispatch(qos:)`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.dispatch(qos: .userInitiated).then { work($0) }.sink { _ in }
  /// ```
  ///
  /// Each call makes its own serial queue, as SwiftySignals does (its README says "a global
  /// queue", which its code does not do); values keep their order.
  ///
  /// > Thread safety: Later steps run on the new queue, one event at a time.
  ///
  /// - Parameter qos: The quality of service of the new queue.
  /// - Returns: A publisher that delivers on the new queue.
  public func dispatch(qos: DispatchQoS = .default) -> Publishers.ReceiveOn<Self, DispatchQueue> {
    receive(on: DispatchQueue(label: "StreamKit.dispatch", qos: qos))
  }

  /// Delivers on a new private serial queue, never the main queue (SwiftySignals'
  /// `noDispatch()`, which ran closures on the modifier's own serial queue).
  ///
  /// ```swift
  /// let cancellable = values.map(transform: { $0 * 2 }).noDispatch().then { print($0) }
  ///   .sink { _ in }
  /// ```
  ///
  /// It is `receive(on:)` a new serial queue, so later steps run asynchronously, in order. To
  /// keep running on the sending thread, leave it out (or use `onFiringThread()` on an
  /// ``EndPoint``).
  ///
  /// > Thread safety: Later steps run on the new queue, one event at a time.
  ///
  /// - Returns: A publisher that delivers on a new private serial queue.
  public func noDispatch() -> Publishers.ReceiveOn<Self, DispatchQueue> {
    receive(on: DispatchQueue(label: "StreamKit.noDispatch"))
  }
}
