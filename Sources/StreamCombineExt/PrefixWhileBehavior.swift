import SignalOperators
public import StreamCore

/// Whether `prefix(while:behavior:)` also publishes the value that ends it.
///
/// ```swift
/// let upToFirstBig = [1, 5, 2].publisher.prefix(while: { $0 < 3 }, behavior: .inclusive)
/// // 1, 5
/// ```
///
/// > Thread safety: A value type.
public enum PrefixWhileBehavior: Sendable, Hashable {
  /// Publish the first value that fails the predicate, then finish.
  case inclusive

  /// Drop the first value that fails the predicate and finish, as `prefix(while:)` does.
  case exclusive
}

extension Publisher {
  /// Publishes values while `predicate` holds, and, with `.inclusive`, the value that ends it.
  ///
  /// ```swift
  /// [1, 2, 5, 1].publisher
  ///   .prefix(while: { $0 < 3 }, behavior: .inclusive)
  ///   .sink { print($0) }  // 1, 2, 5
  /// ```
  ///
  /// `.exclusive` is `prefix(while:)`. With `.inclusive`, the first value for which `predicate`
  /// returns `false` is published, then the upstream is cancelled and the publisher finishes.
  /// Demand is passed to the upstream as it is.
  ///
  /// > Thread safety: `predicate` runs and values are delivered on the upstream's thread;
  /// > `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameters:
  ///   - predicate: Called with each value; `false` ends the stream.
  ///   - behavior: Whether to publish the value that ends the stream.
  /// - Returns: A publisher of the leading values that satisfy `predicate`.
  public func prefix(
    while predicate: @escaping (Output) -> Bool,
    behavior: PrefixWhileBehavior = .exclusive
  ) -> AnyPublisher<Output, Failure> {
    switch behavior {
    case .exclusive:
      prefix(while: predicate).eraseToAnyPublisher()
    case .inclusive:
      PrefixThrough(upstream: self, predicate: predicate).eraseToAnyPublisher()
    }
  }
}

/// `prefix(while:behavior: .inclusive)`: like `Publishers.PrefixWhile`, but the value that fails
/// the predicate is published before the finish.
struct PrefixThrough<Upstream: Publisher>: Publisher {
  typealias Output = Upstream.Output
  typealias Failure = Upstream.Failure

  let upstream: Upstream
  let predicate: (Upstream.Output) -> Bool

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    upstream.subscribe(PassRuleInner(downstream: subscriber, rule: Rule(predicate: predicate)))
  }

  /// Passes while `predicate` holds, then passes the failing value and finishes.
  struct Rule: PassRule {
    typealias Input = Upstream.Output

    let predicate: (Input) -> Bool

    static var name: String { "PrefixWhile" }

    mutating func judge(_ input: Input) -> PassVerdict<Upstream.Failure> {
      predicate(input) ? .pass : .passAndFinish
    }

    static func convert(_ failure: Upstream.Failure) -> Upstream.Failure { failure }
  }
}
