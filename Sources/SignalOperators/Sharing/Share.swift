public import StreamCore

extension Publisher {
  /// Shares one subscription to the upstream among all subscribers.
  ///
  /// ```swift
  /// let shared = expensiveRequest.share()
  /// let first = shared.sink { show($0) }
  /// let second = shared.sink { cache($0) }  // same upstream subscription
  /// ```
  ///
  /// The first subscriber connects to the upstream; when the last one cancels, the upstream is
  /// cancelled, and a later subscriber connects again. Subscribers that arrive after the upstream
  /// completed get the completion only. It is
  /// `multicast { PassthroughSubject() }.autoconnect()`, and as with a subject, a subscriber
  /// without demand misses values.
  ///
  /// > Thread safety: Subscribing and cancelling are safe from any thread.
  ///
  /// - Returns: A class instance that shares the upstream; equal only to itself.
  public func share() -> Publishers.Share<Self> {
    Publishers.Share(upstream: self)
  }
}

extension Publishers {
  /// A publisher that shares one subscription to its upstream among all subscribers.
  ///
  /// ```swift
  /// let shared = Publishers.Share(upstream: values)
  /// shared == shared  // true: equal by identity
  /// ```
  ///
  /// See ``StreamCore/Publisher/share()``.
  ///
  /// > Thread safety: Subscribing and cancelling are safe from any thread.
  public final class Share<Upstream: Publisher>: Publisher, Equatable {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher being shared.
    public let upstream: Upstream

    private let inner: Autoconnect<Multicast<Upstream, PassthroughSubject<Output, Failure>>>

    /// Creates a publisher that shares `upstream`.
    ///
    /// - Parameter upstream: The publisher to share.
    public init(upstream: Upstream) {
      self.upstream = upstream
      inner = Autoconnect(upstream: Multicast(upstream: upstream) { PassthroughSubject() })
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      inner.receive(subscriber: subscriber)
    }

    /// Whether `lhs` and `rhs` are the same instance.
    public static func == (lhs: Share, rhs: Share) -> Bool {
      lhs === rhs
    }
  }
}

// Sendable: its only state is `inner`, which is thread-safe when `Upstream` is Sendable.
extension Publishers.Share: @unchecked Sendable where Upstream: Sendable {}
