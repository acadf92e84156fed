public import StreamCore

// Transforming and filtering operators on `Optional.Publisher`. The value, if any, is either
// transformed, kept or dropped at once, so each returns another `Optional.Publisher` (or a `Just`
// or an `Empty`) and builds no operator structs and no subscriptions.

extension Optional.Publisher {
  /// Transforms the value, if any, with `transform`.
  ///
  /// ```swift
  /// Optional(2).publisher.map { $0 * 10 }  // publishes 20
  /// ```
  ///
  /// > Thread safety: `transform` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the value into the new value.
  /// - Returns: A publisher of the transformed value, or one that just finishes.
  @inlinable
  public func map<ElementOfResult>(
    _ transform: (Output) -> ElementOfResult
  ) -> Optional<ElementOfResult>.Publisher {
    Optional<ElementOfResult>.Publisher(output.map(transform))
  }

  /// Transforms the value, if any, and publishes the result unless it is `nil`.
  ///
  /// ```swift
  /// Optional("x").publisher.compactMap { Int($0) }  // finishes without a value
  /// ```
  ///
  /// > Thread safety: `transform` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the value into an optional new value.
  /// - Returns: A publisher of the new value, or one that just finishes.
  @inlinable
  public func compactMap<ElementOfResult>(
    _ transform: (Output) -> ElementOfResult?
  ) -> Optional<ElementOfResult>.Publisher {
    Optional<ElementOfResult>.Publisher(output.flatMap(transform))
  }

  /// Publishes the value, if any, only if `isIncluded` accepts it.
  ///
  /// ```swift
  /// Optional(3).publisher.filter { $0 > 5 }  // finishes without a value
  /// ```
  ///
  /// > Thread safety: `isIncluded` runs at most once, now, on the calling thread; the result is
  /// > a value that may be subscribed from any thread.
  ///
  /// - Parameter isIncluded: Returns `true` to keep the value.
  /// - Returns: A publisher of the kept value, or one that just finishes.
  @inlinable
  public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
  }

  /// Publishes nothing and finishes; the value, if any, is dropped.
  ///
  /// ```swift
  /// Optional(1).publisher.ignoreOutput()  // Empty<Int, Never>
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: An `Empty` that finishes at once.
  @inlinable
  public func ignoreOutput() -> Empty<Output, Never> {
    Empty<Output, Never>()
  }

  /// Returns `self`: an `Optional.Publisher` never fails, so there is no error to replace.
  ///
  /// ```swift
  /// Optional(1).publisher.replaceError(with: 0)  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: Unused.
  /// - Returns: This publisher.
  @inlinable
  public func replaceError(with output: Output) -> Optional<Output>.Publisher {
    self
  }

  /// Publishes the value, or `output` if there is none.
  ///
  /// ```swift
  /// Optional<Int>.none.publisher.replaceEmpty(with: 0)  // Just(0)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: The value to publish when there is no value.
  /// - Returns: A `Just` of the value or of `output`.
  @inlinable
  public func replaceEmpty(with output: Output) -> Just<Output> {
    Just<Output>(self.output ?? output)
  }

  /// Returns `self`: an `Optional.Publisher` never fails, so there is nothing to retry.
  ///
  /// ```swift
  /// Optional(1).publisher.retry(3)  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter times: Unused.
  /// - Returns: This publisher.
  @inlinable
  public func retry(_ times: Int) -> Optional<Output>.Publisher {
    self
  }

  /// Returns `self`: a single value has no duplicate before it; `predicate` is never called.
  ///
  /// ```swift
  /// Optional(1).publisher.removeDuplicates { $0 == $1 }  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Would compare a value with the one before it; never called.
  /// - Returns: This publisher.
  @inlinable
  public func removeDuplicates(
    by predicate: (Output, Output) -> Bool
  ) -> Optional<Output>.Publisher {
    self
  }

  /// Returns `self`: the value, if any, is the first one.
  ///
  /// ```swift
  /// Optional(1).publisher.first()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func first() -> Optional<Output>.Publisher {
    self
  }

  /// Publishes the value, if any, if `predicate` accepts it.
  ///
  /// ```swift
  /// Optional(4).publisher.first { $0 > 3 }  // publishes 4
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` for the value to publish.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    filter(predicate)
  }

  /// Returns `self`: the value, if any, is the last one.
  ///
  /// ```swift
  /// Optional(1).publisher.last()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func last() -> Optional<Output>.Publisher {
    self
  }

  /// Publishes the value, if any, if `predicate` accepts it.
  ///
  /// ```swift
  /// Optional(4).publisher.last { $0 > 5 }  // finishes without a value
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` for the value to publish.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    filter(predicate)
  }

  /// Drops the first `count` values: the value survives only when `count` is 0.
  ///
  /// ```swift
  /// Optional(1).publisher.dropFirst()  // finishes without a value
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

  /// Drops the value, if any, if `predicate` accepts it.
  ///
  /// ```swift
  /// Optional(1).publisher.drop { $0 < 5 }  // finishes without a value
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` to drop the value.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
  }

  /// Publishes the value at position `index`: the value, if any, when `index` is 0.
  ///
  /// ```swift
  /// Optional("a").publisher.output(at: 0)  // publishes "a"
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

  /// Publishes the values whose positions are in `range`: the value, if any, when `range`
  /// contains 0.
  ///
  /// ```swift
  /// Optional("a").publisher.output(in: 0..<3)  // publishes "a"
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter range: The positions of the values to publish; must not start below 0.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher
  where R.Bound == Int {
    let positions = range.relative(to: 0..<Int.max)
    precondition(positions.lowerBound >= 0, "output(in:): range must not start below 0")
    // Combine's specialisation traps here too.
    precondition(
      positions.upperBound < Int.max - 1,
      "output(in:): range must end below Int.max - 1"
    )
    return Optional<Output>.Publisher(positions.contains(0) ? output : nil)
  }

  /// Publishes at most `maxLength` values: the value, if any, unless `maxLength` is 0.
  ///
  /// ```swift
  /// Optional(1).publisher.prefix(0)  // finishes without a value
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

  /// Publishes the value, if any, if `predicate` accepts it.
  ///
  /// ```swift
  /// Optional(1).publisher.prefix { $0 < 5 }  // publishes 1
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` to keep publishing.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    filter(predicate)
  }
}

extension Optional.Publisher where Wrapped: Equatable {
  /// Returns `self`: a single value has no duplicate before it.
  ///
  /// ```swift
  /// Optional(1).publisher.removeDuplicates()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func removeDuplicates() -> Optional<Output>.Publisher {
    self
  }
}
