/// A publisher that provides an explicit means of connecting and cancelling publication.
///
/// ```swift
/// let connectable = upstream.makeConnectable()  // from SignalOperators
/// let first = connectable.sink { print("A", $0) }
/// let second = connectable.sink { print("B", $0) }
/// let connection = connectable.connect()
/// ```
///
/// Use it to set up several subscribers before any value flows.
///
/// > Thread safety: Each conforming type states whether ``connect()`` may be called from any
/// > thread; SignalOperators' `Publishers.Multicast` and `Publishers.MakeConnectable` allow it.
public protocol ConnectablePublisher<Output, Failure>: Publisher {
  /// Connects to the publisher, allowing it to produce elements, and returns an instance with
  /// which to cancel publishing.
  ///
  /// - Returns: A ``Cancellable`` instance that you use to cancel publishing.
  func connect() -> any Cancellable
}
