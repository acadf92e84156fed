public import StreamCore

extension Publisher {
  /// Drops values while a throwing `predicate` returns `true`, then publishes every value.
  ///
  /// ```swift
  /// struct Bad: Error {}
  /// [1, 2, 5].publisher
  ///   .tryDrop(while: { if $0 < 0 { throw Bad() }; return $0 < 3 })
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })  // prints 5
  /// ```
  ///
  /// Each dropped value asks the upstream for one more. If `predicate` throws, the upstream is
  /// cancelled and the publisher fails with the error. Once `predicate` has returned `false` it
  /// is not called again, and is released.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/TryDropWhile``.
  ///
  /// - Parameter predicate: Called with each value until it returns `false`; `true` drops the
  ///   value, and an error ends the stream.
  /// - Returns: A publisher that drops the leading values that satisfy `predicate`.
  @inlinable
  public func tryDrop(
    while predicate: @escaping (Output) throws -> Bool
  ) -> Publishers.TryDropWhile<Self> {
    Publishers.TryDropWhile(upstream: self, predicate: predicate)
  }
}

extension Publishers {
  /// A publisher that drops the upstream's values while a throwing predicate holds.
  ///
  /// ```swift
  /// let rest = Publishers.TryDropWhile(upstream: [1, 5].publisher) { $0 < 3 }  // 5
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryDrop(while:)``. The upstream's failure is passed on as
  /// `any Error`. The subscription's description is `"TryDropWhile"`.
  ///
  /// > Thread safety: Values are delivered on the upstream's thread, and `predicate` is called
  /// > there, one value at a time. `request(_:)` and `cancel()` are safe from any thread.
  public struct TryDropWhile<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher whose leading values are dropped.
    public let upstream: Upstream

    /// Returns `true` for a value to drop, or throws to fail the stream.
    public let predicate: (Upstream.Output) throws -> Bool

    /// Creates a publisher that drops the upstream's leading values that satisfy `predicate`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose leading values are dropped.
    ///   - predicate: Returns `true` for a value to drop, or throws to fail the stream.
    @inlinable
    public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
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

extension Publishers.TryDropWhile {
  /// Drops while `predicate` holds, fails if it throws, and lets go of it once a value passes.
  @usableFromInline
  struct Rule: PassRule {
    @usableFromInline
    typealias Input = Upstream.Output

    /// `nil` once a value has passed.
    @usableFromInline
    var predicate: ((Input) throws -> Bool)?

    @inlinable
    init(_ predicate: @escaping (Input) throws -> Bool) {
      self.predicate = predicate
    }

    @usableFromInline
    static var name: String { "TryDropWhile" }

    /// As in Combine: a value sent before the upstream's subscription is ignored.
    @usableFromInline
    static var ignoresValuesBeforeSubscription: Bool { true }

    @inlinable
    mutating func judge(_ input: Input) -> PassVerdict<any Error> {
      guard let predicate else { return .pass }
      do {
        if try predicate(input) { return .drop(.max(1)) }
      } catch {
        return .fail(error)
      }
      self.predicate = nil
      return .pass
    }

    @inlinable
    static func convert(_ failure: Upstream.Failure) -> any Error { failure }
  }
}
