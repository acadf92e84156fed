import SignalOperators
public import StreamCore

extension Publisher where Output: Hashable {
  /// Publishes each value only the first time it appears.
  ///
  /// ```swift
  /// [1, 1, 2, 1, 3].publisher.removeAllDuplicates().sink { print($0) }  // 1, 2, 3
  /// ```
  ///
  /// Unlike `removeDuplicates()`, which compares a value with the one before it, this compares
  /// it with every value published so far, kept in a `Set` for the life of the subscription:
  /// memory grows with the number of distinct values. Each dropped value asks the upstream for
  /// one more.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/RemoveAllDuplicates``.
  ///
  /// - Returns: A publisher of the distinct values, in the order they first arrive.
  public func removeAllDuplicates() -> Publishers.RemoveAllDuplicates<Self> {
    Publishers.RemoveAllDuplicates(upstream: self) {
      var seen = Set<Output>()
      return { seen.insert($0).inserted }
    }
  }
}

extension Publisher where Output: Equatable {
  /// Publishes each value only the first time it appears, comparing with `==`.
  ///
  /// ```swift
  /// [1.0, 2.0, 1.0].publisher.removeAllDuplicates().sink { print($0) }  // 1.0, 2.0
  /// ```
  ///
  /// For values that are `Equatable` but not `Hashable`: the values published so far are kept
  /// in an array and each new value is compared with all of them.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/RemoveAllDuplicates``.
  ///
  /// - Returns: A publisher of the distinct values, in the order they first arrive.
  public func removeAllDuplicates() -> Publishers.RemoveAllDuplicates<Self> {
    removeAllDuplicates(by: ==)
  }
}

extension Publisher {
  /// Publishes a value only if `comparator` matches it with no value published before.
  ///
  /// ```swift
  /// ["a", "B", "A"].publisher
  ///   .removeAllDuplicates { $0.lowercased() == $1.lowercased() }
  ///   .sink { print($0) }  // a, B
  /// ```
  ///
  /// `comparator(seen, new)` is called with each published value and the new one; if it
  /// returns `true` for any of them, the new value is dropped (and the upstream asked for one
  /// more). The published values are kept for the life of the subscription.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/RemoveAllDuplicates``.
  ///
  /// - Parameter comparator: Returns `true` when two values count as duplicates.
  /// - Returns: A publisher of the values no earlier value duplicates.
  public func removeAllDuplicates(
    by comparator: @escaping (Output, Output) -> Bool
  ) -> Publishers.RemoveAllDuplicates<Self> {
    Publishers.RemoveAllDuplicates(upstream: self) {
      var seen: [Output] = []
      return { value in
        if seen.contains(where: { comparator($0, value) }) { return false }
        seen.append(value)
        return true
      }
    }
  }
}

extension Publishers {
  /// A publisher that drops every value a value published earlier duplicates.
  ///
  /// ```swift
  /// let distinct = [3, 3, 1, 3].publisher.removeAllDuplicates()  // 3, 1
  /// ```
  ///
  /// Made by `removeAllDuplicates()` and `removeAllDuplicates(by:)`. Each subscription starts
  /// with nothing seen: it subscribes a `filter` whose record of seen values is its own. The
  /// subscriber gets the upstream's own subscription; each dropped value asks for one more.
  ///
  /// > Thread safety: The record of seen values is touched only by the upstream's deliveries,
  /// > which come one at a time.
  public struct RemoveAllDuplicates<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose duplicates are removed.
    public let upstream: Upstream

    /// Makes, for each subscription, the test that passes a value not seen before.
    let makeIsNew: () -> (Upstream.Output) -> Bool

    init(upstream: Upstream, makeIsNew: @escaping () -> (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.makeIsNew = makeIsNew
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.filter(makeIsNew()).subscribe(subscriber)
    }
  }
}
