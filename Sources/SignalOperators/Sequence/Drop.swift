public import StreamCore

extension Publisher {
  /// Drops the first `count` values, then publishes the rest.
  ///
  /// ```swift
  /// [1, 2, 3, 4].publisher.dropFirst(2).sink { print($0) }  // prints 3, 4
  /// ```
  ///
  /// As in Combine, the subscriber gets its subscription before the upstream is subscribed; once
  /// the upstream's subscription arrives, it is asked for `count` values (the ones dropped) plus
  /// whatever the subscriber requested meanwhile, and later requests are passed on as they are.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Drop``.
  ///
  /// - Parameter count: How many values to drop; 1 by default; must not be negative.
  /// - Returns: A publisher that drops the first `count` values.
  @inlinable
  public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
    Publishers.Drop(upstream: self, count: count)
  }
}

extension Publishers {
  /// A publisher that drops the first values of its upstream.
  ///
  /// ```swift
  /// let rest = Publishers.Drop(upstream: [1, 2, 3].publisher, count: 1)  // 2, 3
  /// ```
  ///
  /// See ``StreamCore/Publisher/dropFirst(_:)``. The subscription's description is `"Drop"`.
  ///
  /// > Thread safety: A value type. Values are delivered on the upstream's thread;
  /// > `request(_:)` and `cancel()` are safe from any thread, and nothing is delivered after
  /// > `cancel()` returns on the delivering thread.
  public struct Drop<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose first values are dropped.
    public let upstream: Upstream

    /// How many values are dropped.
    public let count: Int

    /// Creates a publisher that drops the upstream's first `count` values.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose first values are dropped.
    ///   - count: How many values to drop; must not be negative (checked at subscription).
    @inlinable
    public init(upstream: Upstream, count: Int) {
      self.upstream = upstream
      self.count = count
    }

    /// Traps when `count` is negative: as in Combine, at subscription rather than when the
    /// publisher is made.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      precondition(count >= 0, "Drop: count must not be negative, got \(count)")
      let inner = PassRuleInner(downstream: subscriber, rule: Rule(remaining: count))
      subscriber.receive(subscription: inner)
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop: Sendable where Upstream: Sendable {}

extension Publishers.Drop {
  /// Drops `remaining` values, whose demand the initial request covered.
  @usableFromInline
  struct Rule: PassRule {
    @usableFromInline
    typealias Input = Upstream.Output

    @usableFromInline
    var remaining: Int

    @inlinable
    init(remaining: Int) {
      self.remaining = remaining
    }

    @usableFromInline
    static var name: String { "Drop" }

    @usableFromInline
    static var subscriberFirst: Bool { true }

    /// The values still to drop, asked for as soon as the upstream subscribes.
    @usableFromInline
    var initialRequest: Subscribers.Demand { .max(remaining) }

    @inlinable
    mutating func judge(_ input: Input) -> PassVerdict<Upstream.Failure> {
      guard remaining > 0 else { return .pass }
      remaining -= 1
      return .drop(.none)
    }

    @inlinable
    static func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
  }
}
