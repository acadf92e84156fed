public import StreamCore

extension Publisher {
  /// Drops values while `predicate` returns `true`, then publishes every value.
  ///
  /// ```swift
  /// [1, 2, 5, 1].publisher.drop(while: { $0 < 3 }).sink { print($0) }  // prints 5, 1
  /// ```
  ///
  /// Each dropped value asks the upstream for one more, so the downstream's demand is kept. Once
  /// `predicate` has returned `false` it is not called again, and is released.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/DropWhile``.
  ///
  /// - Parameter predicate: Called with each value until it returns `false`; `true` drops the
  ///   value.
  /// - Returns: A publisher that drops the leading values that satisfy `predicate`.
  @inlinable
  public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
    Publishers.DropWhile(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that drops the upstream's values while a predicate holds.
  ///
  /// ```swift
  /// let rest = Publishers.DropWhile(upstream: [1, 5].publisher) { $0 < 3 }  // 5
  /// ```
  ///
  /// See ``StreamCore/Publisher/drop(while:)``. The subscription's description is `"DropWhile"`.
  ///
  /// > Thread safety: Values are delivered on the upstream's thread, and `predicate` is called
  /// > there, one value at a time. `request(_:)` and `cancel()` are safe from any thread.
  public struct DropWhile<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose leading values are dropped.
    public let upstream: Upstream

    /// Returns `true` for a value to drop.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher that drops the upstream's leading values that satisfy `predicate`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose leading values are dropped.
    ///   - predicate: Returns `true` for a value to drop.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(PassRuleInner(downstream: subscriber, rule: Rule(predicate)))
    }
  }
}

extension Publishers.DropWhile {
  /// Drops while `predicate` holds, then lets go of it.
  @usableFromInline
  struct Rule: PassRule {
    @usableFromInline
    typealias Input = Upstream.Output

    /// `nil` once a value has passed.
    @usableFromInline
    var predicate: ((Input) -> Bool)?

    @inlinable
    init(_ predicate: @escaping (Input) -> Bool) {
      self.predicate = predicate
    }

    @usableFromInline
    static var name: String { "DropWhile" }

    /// As in Combine: a value sent before the upstream's subscription is ignored.
    @usableFromInline
    static var ignoresValuesBeforeSubscription: Bool { true }

    @inlinable
    mutating func judge(_ input: Input) -> PassVerdict<Upstream.Failure> {
      guard let predicate else { return .pass }
      if predicate(input) { return .drop(.max(1)) }
      self.predicate = nil
      return .pass
    }

    @inlinable
    static func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
  }
}
