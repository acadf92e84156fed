public import StreamCore

// Operators on `Optional.Publisher` that reduce or compare its at most one value. An absent value
// is an empty stream, so the answers match what the general operators publish for one: `count()`
// publishes 0, `collect()` an empty array, `contains` `false`, `allSatisfy` `true`, and
// `reduce` its initial result.

extension Optional.Publisher {
  /// Publishes the value, if any, in an array: `[value]` or `[]`.
  ///
  /// ```swift
  /// Optional<Int>.none.publisher.collect()  // publishes []
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the array.
  @inlinable
  public func collect() -> Optional<[Output]>.Publisher {
    Optional<[Output]>.Publisher(output.map { [$0] } ?? [])
  }

  /// Publishes 1 when there is a value; without one it publishes nothing and finishes (Combine's
  /// specialisation, unlike `count()` on other publishers, which publishes 0).
  ///
  /// ```swift
  /// Optional("a").publisher.count()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the count.
  @inlinable
  public func count() -> Optional<Int>.Publisher {
    Optional<Int>.Publisher(output.map { _ in 1 })
  }

  /// Returns `self`: the value, if any, is the smallest; `areInIncreasingOrder` is never called.
  ///
  /// ```swift
  /// Optional(3).publisher.min { $0 < $1 }  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Would order two values; never called.
  /// - Returns: This publisher.
  @inlinable
  public func min(
    by areInIncreasingOrder: (Output, Output) -> Bool
  ) -> Optional<Output>.Publisher {
    self
  }

  /// Returns `self`: the value, if any, is the largest; `areInIncreasingOrder` is never called.
  ///
  /// ```swift
  /// Optional(3).publisher.max { $0 < $1 }  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Would order two values; never called.
  /// - Returns: This publisher.
  @inlinable
  public func max(
    by areInIncreasingOrder: (Output, Output) -> Bool
  ) -> Optional<Output>.Publisher {
    self
  }

  /// Publishes whether `predicate` accepts the value; without a value it publishes nothing and
  /// finishes, as Combine's specialisation does.
  ///
  /// ```swift
  /// Optional(4).publisher.allSatisfy { $0 > 3 }  // publishes true
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value.
  /// - Returns: A publisher of the answer.
  @inlinable
  public func allSatisfy(_ predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
    Optional<Bool>.Publisher(output.map(predicate))
  }

  /// Publishes whether `predicate` accepts the value; without a value it publishes nothing and
  /// finishes, as Combine's specialisation does.
  ///
  /// ```swift
  /// Optional(4).publisher.contains { $0 > 5 }  // publishes false
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value.
  /// - Returns: A publisher of the answer.
  @inlinable
  public func contains(where predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
    Optional<Bool>.Publisher(output.map(predicate))
  }

  /// Publishes `nextPartialResult(initialResult, value)`; without a value it publishes nothing
  /// and finishes, as Combine's specialisation does.
  ///
  /// ```swift
  /// Optional(2).publisher.reduce(10, +)  // publishes 12
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs at most once, now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator.
  /// - Returns: A publisher of the final accumulator.
  @inlinable
  public func reduce<Accumulator>(
    _ initialResult: Accumulator,
    _ nextPartialResult: (Accumulator, Output) -> Accumulator
  ) -> Optional<Accumulator>.Publisher {
    Optional<Accumulator>.Publisher(output.map { nextPartialResult(initialResult, $0) })
  }

  /// Publishes `nextPartialResult(initialResult, value)`, the one step of the scan; nothing
  /// when there is no value.
  ///
  /// ```swift
  /// Optional(2).publisher.scan(10, +)  // publishes 12
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs at most once, now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator.
  /// - Returns: A publisher of the accumulator after the value, or one that just finishes.
  @inlinable
  public func scan<ElementOfResult>(
    _ initialResult: ElementOfResult,
    _ nextPartialResult: (ElementOfResult, Output) -> ElementOfResult
  ) -> Optional<ElementOfResult>.Publisher {
    Optional<ElementOfResult>.Publisher(output.map { nextPartialResult(initialResult, $0) })
  }
}

extension Optional.Publisher where Wrapped: Equatable {
  /// Publishes whether the value equals `output`; without a value it publishes nothing and
  /// finishes, as Combine's specialisation does.
  ///
  /// ```swift
  /// Optional(3).publisher.contains(3)  // publishes true
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: The value to look for.
  /// - Returns: A publisher of the answer.
  @inlinable
  public func contains(_ output: Output) -> Optional<Bool>.Publisher {
    Optional<Bool>.Publisher(self.output.map { $0 == output })
  }
}

extension Optional.Publisher where Wrapped: Comparable {
  /// Returns `self`: the value, if any, is the smallest.
  ///
  /// ```swift
  /// Optional(3).publisher.min()  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func min() -> Optional<Output>.Publisher {
    self
  }

  /// Returns `self`: the value, if any, is the largest.
  ///
  /// ```swift
  /// Optional(3).publisher.max()  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func max() -> Optional<Output>.Publisher {
    self
  }
}
