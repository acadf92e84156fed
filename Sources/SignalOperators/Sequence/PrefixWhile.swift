public import StreamCore

extension Publisher {
  /// Publishes values while `predicate` returns `true`, then finishes.
  ///
  /// ```swift
  /// [1, 2, 5, 1].publisher.prefix(while: { $0 < 3 }).sink { print($0) }  // prints 1, 2
  /// ```
  ///
  /// On the first value for which `predicate` returns `false`, that value is dropped, the
  /// upstream is cancelled and the publisher finishes. Downstream demand is passed on as it is.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/PrefixWhile``.
  ///
  /// - Parameter predicate: Called with each value; `false` ends the stream.
  /// - Returns: A publisher that publishes the leading values that satisfy `predicate`.
  @inlinable
  public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
    Publishers.PrefixWhile(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that publishes the upstream's values while a predicate holds.
  ///
  /// ```swift
  /// let head = Publishers.PrefixWhile(upstream: [1, 5, 2].publisher) { $0 < 3 }  // 1
  /// ```
  ///
  /// See ``StreamCore/Publisher/prefix(while:)``. The subscription's description is
  /// `"PrefixWhile"`.
  ///
  /// > Thread safety: Values are delivered on the upstream's thread, and `predicate` is called
  /// > there, one value at a time. `request(_:)` and `cancel()` are safe from any thread.
  public struct PrefixWhile<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose leading values are published.
    public let upstream: Upstream

    /// Returns `true` for a value to publish; `false` ends the stream.
    public let predicate: (Upstream.Output) -> Bool

    /// Creates a publisher of the upstream's leading values that satisfy `predicate`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose leading values are published.
    ///   - predicate: Returns `true` for a value to publish; `false` ends the stream.
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

extension Publishers.PrefixWhile {
  /// Passes while `predicate` holds, then finishes.
  @usableFromInline
  struct Rule: PassRule {
    @usableFromInline
    typealias Input = Upstream.Output

    @usableFromInline
    let predicate: (Input) -> Bool

    @inlinable
    init(_ predicate: @escaping (Input) -> Bool) {
      self.predicate = predicate
    }

    @usableFromInline
    static var name: String { "PrefixWhile" }

    /// The mirror shows the downstream, as Combine's.
    @inlinable
    static var reflectsDownstream: Bool { true }

    @inlinable
    static var trapsEventsBeforeSubscription: Bool { true }

    @inlinable
    mutating func judge(_ input: Input) -> PassVerdict<Upstream.Failure> {
      predicate(input) ? .pass : .finish
    }

    @inlinable
    static func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
  }
}
