public import StreamCore

extension Publisher where Failure == Never {
  /// Wraps a never-failing publisher so that it only starts publishing when connected.
  ///
  /// ```swift
  /// let connectable = values.makeConnectable()
  /// let first = connectable.sink { print("A", $0) }
  /// let second = connectable.sink { print("B", $0) }
  /// let connection = connectable.connect()
  /// ```
  ///
  /// It multicasts the upstream through a `PassthroughSubject`, like
  /// `multicast { PassthroughSubject() }`.
  ///
  /// > Thread safety: Subscribing, connecting and cancelling are safe from any thread.
  ///
  /// - Returns: A connectable publisher that shares the upstream once connected.
  public func makeConnectable() -> Publishers.MakeConnectable<Self> {
    Publishers.MakeConnectable(upstream: self)
  }
}

extension Publishers {
  /// A connectable publisher that shares its upstream through a `PassthroughSubject`.
  ///
  /// ```swift
  /// let connectable = Publishers.MakeConnectable(upstream: values)
  /// let connection = connectable.connect()
  /// ```
  ///
  /// Copies share one subject and one connection. See ``StreamCore/Publishers/Multicast`` for how
  /// ``connect()`` behaves.
  ///
  /// > Thread safety: Subscribing, ``connect()`` and cancelling the connection are safe from any
  /// > thread.
  public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    private let inner: Multicast<Upstream, PassthroughSubject<Output, Failure>>

    /// Creates a connectable publisher.
    ///
    /// - Parameter upstream: The publisher to share once connected.
    public init(upstream: Upstream) {
      inner = Multicast(upstream: upstream) { PassthroughSubject() }
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      inner.receive(subscriber: subscriber)
    }

    /// Subscribes to the upstream; every call subscribes again, as with ``Multicast``.
    ///
    /// - Returns: The connection; cancel (or release) it to cancel this upstream subscription.
    public func connect() -> any Cancellable {
      inner.connect()
    }
  }
}

extension Publishers.MakeConnectable: Sendable where Upstream: Sendable {}
