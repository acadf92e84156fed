public import Dispatch
public import StreamCore

extension Publisher {
  /// Delivers values, completion and everything after this point on `queue` (SwiftySignals'
  /// `dispatch(to:)`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.dispatch(to: .main).then { label.text = $0 }.sink { _ in }
  /// ```
  ///
  /// It is `receive(on: queue)`. Unlike SwiftySignals, delivery is synchronous until an explicit
  /// `dispatch`, and it moves every later step, not only user closures.
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

  /// Keeps delivering on the thread the upstream sends on (SwiftySignals' `noDispatch()`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.noDispatch().then { print($0) }.sink { _ in }
  /// ```
  ///
  /// It returns this publisher unchanged: StreamKit delivers synchronously unless told otherwise,
  /// so there is nothing to undo.
  ///
  /// > Thread safety: Later steps run on the upstream's sending thread.
  ///
  /// - Returns: This publisher.
  public func noDispatch() -> Self {
    self
  }
}
