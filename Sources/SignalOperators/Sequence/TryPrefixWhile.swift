public import StreamCore

extension Publisher {
  /// Publishes values while a throwing `predicate` returns `true`, then finishes.
  ///
  /// ```swift
  /// struct Bad: Error {}
  /// [1, 2, 5].publisher
  ///   .tryPrefix(while: { if $0 < 0 { throw Bad() }; return $0 < 3 })
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints 1, 2
  /// ```
  ///
  /// On the first value for which `predicate` returns `false`, that value is dropped, the
  /// upstream is cancelled and the publisher finishes. If `predicate` throws, the upstream is
  /// cancelled and the publisher fails with the error.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/TryPrefixWhile``.
  ///
  /// - Parameter predicate: Called with each value; `false` ends the stream, and an error fails
  ///   it.
  /// - Returns: A publisher that publishes the leading values that satisfy `predicate`.
  public func tryPrefix(
    while predicate: @escaping (Output) throws -> Bool
  ) -> Publishers.TryPrefixWhile<Self> {
    Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that publishes the upstream's values while a throwing predicate holds.
  ///
  /// ```swift
  /// let head = Publishers.TryPrefixWhile(upstream: [1, 5].publisher) { $0 < 3 }  // 1
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryPrefix(while:)``. The upstream's failure is passed on as
  /// `any Error`. The subscription's description is `"TryPrefixWhile"`.
  ///
  /// > Thread safety: Values are delivered on the upstream's thread, and `predicate` is called
  /// > there, one value at a time. `request(_:)` and `cancel()` are safe from any thread.
  public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher whose leading values are published.
    public let upstream: Upstream

    /// Returns `true` for a value to publish, `false` to finish, or throws to fail.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher of the upstream's leading values that satisfy `predicate`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose leading values are published.
    ///   - predicate: Returns `true` for a value to publish, `false` to finish, or throws to
    ///     fail.
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(PassRuleInner(downstream: subscriber, rule: Rule(predicate)))
    }
  }
}

extension Publishers.TryPrefixWhile {
  /// Passes while `predicate` holds, finishes when it doesn't, fails when it throws.
  @usableFromInline
  struct Rule: PassRule {
    @usableFromInline
    typealias Input = Upstream.Output

    @usableFromInline
    let predicate: (Input) throws -> Bool

    @usableFromInline
    init(_ predicate: @escaping (Input) throws -> Bool) {
      self.predicate = predicate
    }

    @usableFromInline
    static var name: String { "TryPrefixWhile" }

    /// The mirror shows the downstream, as Combine's.
    @inlinable
    static var reflectsDownstream: Bool { true }

    @inlinable
    static var trapsEventsBeforeSubscription: Bool { true }

    @usableFromInline
    mutating func judge(_ input: Input) -> PassVerdict<any Error> {
      do {
        return try predicate(input) ? .pass : .finish
      } catch {
        return .fail(error)
      }
    }

    @usableFromInline
    static func convert(_ failure: Upstream.Failure) -> any Error { failure }
  }
}
