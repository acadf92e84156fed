public import StreamCore

// Operators on `Just` that pick values by position or predicate: the one value is either kept or
// dropped, so each returns a `Just` or an `Optional.Publisher`.

extension Just {
  /// Returns `self`: the value is the first one.
  ///
  /// ```swift
  /// Just(1).first()  // Just(1)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This `Just`.
  @inlinable
  public func first() -> Just<Output> {
    self
  }

  /// Publishes the value if `predicate` accepts it.
  ///
  /// ```swift
  /// Just(4).first { $0 > 3 }  // Optional.Publisher(4)
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` for the value to publish.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? output : nil)
  }

  /// Returns `self`: the value is the last one.
  ///
  /// ```swift
  /// Just(1).last()  // Just(1)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This `Just`.
  @inlinable
  public func last() -> Just<Output> {
    self
  }

  /// Publishes the value if `predicate` accepts it.
  ///
  /// ```swift
  /// Just(4).last { $0 > 5 }  // finishes without a value
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` for the value to publish.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? output : nil)
  }

  /// Drops the first `count` values: the value survives only when `count` is 0.
  ///
  /// ```swift
  /// Just(1).dropFirst()  // finishes without a value
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter count: How many values to drop; must not be negative.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
    precondition(count >= 0, "dropFirst: count must not be negative")
    return Optional<Output>.Publisher(count == 0 ? output : nil)
  }

  /// Drops the value if `predicate` accepts it.
  ///
  /// ```swift
  /// Just(1).drop { $0 < 5 }  // finishes without a value
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` to drop the value.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? nil : output)
  }

  /// Publishes the value at position `index`: the value when `index` is 0, else nothing.
  ///
  /// ```swift
  /// Just("a").output(at: 0)  // Optional.Publisher("a")
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter index: The position of the value to publish; must not be negative.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func output(at index: Int) -> Optional<Output>.Publisher {
    precondition(index >= 0, "output(at:): index must not be negative")
    return Optional<Output>.Publisher(index == 0 ? output : nil)
  }

  /// Publishes the value when `range` starts at 0, as Combine's specialisation does: even an
  /// empty `0..<0` publishes it, and a range that starts below 0 publishes nothing (Combine's
  /// own quirk, reported as FB6169621; the general `output(in:)` differs).
  ///
  /// ```swift
  /// Just("a").output(in: 0..<3)  // Optional.Publisher("a")
  /// Just("a").output(in: 1..<3)  // finishes without a value
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter range: The positions of the values to publish.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher
  where R.Bound == Int {
    Optional<Output>.Publisher(range.relative(to: 0..<Int.max).lowerBound == 0 ? output : nil)
  }

  /// Publishes at most `maxLength` values: the value unless `maxLength` is 0.
  ///
  /// ```swift
  /// Just(1).prefix(0)  // finishes without a value
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter maxLength: How many values to publish at most; must not be negative.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
    precondition(maxLength >= 0, "prefix: maxLength must not be negative")
    return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
  }

  /// Publishes the value if `predicate` accepts it.
  ///
  /// ```swift
  /// Just(1).prefix { $0 < 5 }  // Optional.Publisher(1)
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` to keep publishing.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? output : nil)
  }
}
