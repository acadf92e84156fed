public import StreamCore

extension Publisher {
  /// Publishes only the value at `index` in the upstream's sequence of values, then finishes.
  ///
  /// ```swift
  /// [10, 20, 30].publisher.output(at: 1).sink { print($0) }  // prints 20
  /// ```
  ///
  /// The same as `output(in: index...index)`.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Output``.
  ///
  /// - Parameter index: The zero-based index of the value to publish; must not be negative.
  /// - Returns: A publisher that publishes the value at `index`.
  @inlinable
  public func output(at index: Int) -> Publishers.Output<Self> {
    precondition(index >= 0, "output(at:): index must not be negative, got \(index)")
    return output(in: index...index)
  }

  /// Publishes the values whose indices fall in `range`, then finishes.
  ///
  /// ```swift
  /// (0..<10).publisher.output(in: 2..<5).sink { print($0) }  // prints 2, 3, 4
  /// ```
  ///
  /// Values before the range are dropped; each dropped value asks the upstream for one more, so
  /// the downstream's demand is kept. Once the last value of the range has been sent, the upstream
  /// is cancelled and the publisher finishes.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Output``.
  ///
  /// - Parameter range: Zero-based indices of the values to publish; its bounds must not be
  ///   negative.
  /// - Returns: A publisher that publishes the values in `range`.
  @inlinable
  public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self>
  where R.Bound == Int {
    Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
  }

  /// Publishes at most the first `maxLength` values, then finishes.
  ///
  /// ```swift
  /// [1, 2, 3, 4].publisher.prefix(2).sink { print($0) }  // prints 1, 2
  /// ```
  ///
  /// The same as `output(in: ..<maxLength)`: after the `maxLength`th value the upstream is
  /// cancelled and the publisher finishes; with `maxLength` 0 it finishes at once.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Output``.
  ///
  /// - Parameter maxLength: The most values to publish; must not be negative.
  /// - Returns: A publisher that publishes the first `maxLength` values.
  @inlinable
  public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
    precondition(maxLength >= 0, "prefix(_:): maxLength must not be negative, got \(maxLength)")
    return output(in: ..<maxLength)
  }
}

extension Publishers {
  /// A publisher that publishes the upstream's values whose indices fall in a range.
  ///
  /// ```swift
  /// let middle = Publishers.Output(upstream: (0..<10).publisher, range: 3..<6)  // 3, 4, 5
  /// ```
  ///
  /// See ``StreamCore/Publisher/output(in:)``. Downstream demand is passed on to the upstream,
  /// plus one for each value dropped before the range. After the range's last value the upstream
  /// is cancelled and the publisher finishes; with an empty range it finishes as soon as it is
  /// subscribed. The subscription's description is `"Output"`.
  ///
  /// > Thread safety: A value type. Values are delivered on the upstream's thread;
  /// > `request(_:)` and `cancel()` are safe from any thread, and nothing is delivered after
  /// > `cancel()` returns on the delivering thread.
  public struct Output<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are selected.
    public let upstream: Upstream

    /// The zero-based indices of the values to publish.
    public let range: CountableRange<Int>

    /// Creates a publisher of the upstream's values in `range`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are selected.
    ///   - range: Zero-based indices of the values to publish; its bounds must not be negative.
    @inlinable
    public init(upstream: Upstream, range: CountableRange<Int>) {
      precondition(range.lowerBound >= 0, "Output: the range's lower bound must not be negative")
      precondition(range.upperBound >= 0, "Output: the range's upper bound must not be negative")
      self.upstream = upstream
      self.range = range
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        PassRuleInner(
          downstream: subscriber,
          rule: Rule(skip: range.lowerBound, take: range.count),
          finishAtOnce: range.isEmpty
        )
      )
    }
  }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Publishers.Output: Sendable where Upstream: Sendable {}

extension Publishers.Output {
  /// Drops `skip` values, passes `take`, and finishes with the last one.
  @usableFromInline
  struct Rule: PassRule {
    @usableFromInline
    typealias Input = Upstream.Output

    @usableFromInline
    var skip: Int

    @usableFromInline
    var take: Int

    @inlinable
    init(skip: Int, take: Int) {
      self.skip = skip
      self.take = take
    }

    @usableFromInline
    static var name: String { "Output" }

    @usableFromInline
    static var trapsRequestNone: Bool { false }

    @inlinable
    mutating func judge(_ input: Input) -> PassVerdict<Upstream.Failure> {
      guard take > 0 else { return .finish }  // an empty range
      if skip > 0 {
        skip -= 1
        return .drop(.max(1))
      }
      take -= 1
      return take > 0 ? .pass : .passAndFinish
    }

    @inlinable
    static func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
  }
}
