public import StreamCore

// Operators on `Just` that reduce, compare or extend the stream. With one value the answer is
// known at once, so each returns a `Just`, a `Result.Publisher` or a `Publishers.Sequence`.

extension Just {
  /// Publishes the value in a one-element array.
  ///
  /// ```swift
  /// Just(1).collect()  // Just([1])
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A `Just` of `[output]`.
  @inlinable
  public func collect() -> Just<[Output]> {
    Just<[Output]>([output])
  }

  /// Publishes the number of values, 1.
  ///
  /// ```swift
  /// Just("a").count()  // Just(1)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: `Just(1)`.
  @inlinable
  public func count() -> Just<Int> {
    Just<Int>(1)
  }

  /// Returns `self`: the only value is the smallest; `areInIncreasingOrder` is never called.
  ///
  /// ```swift
  /// Just(3).min { $0 < $1 }  // Just(3)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Would order two values; never called.
  /// - Returns: This `Just`.
  @inlinable
  public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
    self
  }

  /// Returns `self`: the only value is the largest; `areInIncreasingOrder` is never called.
  ///
  /// ```swift
  /// Just(3).max { $0 < $1 }  // Just(3)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Would order two values; never called.
  /// - Returns: This `Just`.
  @inlinable
  public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
    self
  }

  /// Publishes whether `predicate` accepts the value.
  ///
  /// ```swift
  /// Just(4).allSatisfy { $0 > 3 }  // Just(true)
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value.
  /// - Returns: A `Just` of the answer.
  @inlinable
  public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> {
    Just<Bool>(predicate(output))
  }

  /// Publishes whether a throwing `predicate` accepts the value; a thrown error becomes the
  /// failure.
  ///
  /// ```swift
  /// Just(4).tryAllSatisfy { try check($0) }  // Result<Bool, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value, or throws.
  /// - Returns: A publisher of the answer, or of the error `predicate` threw.
  @inlinable
  public func tryAllSatisfy(
    _ predicate: (Output) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    Result<Bool, any Error>.Publisher(Result { try predicate(output) })
  }

  /// Publishes whether `predicate` accepts the value.
  ///
  /// ```swift
  /// Just(4).contains { $0 > 5 }  // Just(false)
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value.
  /// - Returns: A `Just` of the answer.
  @inlinable
  public func contains(where predicate: (Output) -> Bool) -> Just<Bool> {
    Just<Bool>(predicate(output))
  }

  /// Publishes whether a throwing `predicate` accepts the value; a thrown error becomes the
  /// failure.
  ///
  /// ```swift
  /// Just(4).tryContains { try check($0) }  // Result<Bool, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `predicate` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value, or throws.
  /// - Returns: A publisher of the answer, or of the error `predicate` threw.
  @inlinable
  public func tryContains(
    where predicate: (Output) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    Result<Bool, any Error>.Publisher(Result { try predicate(output) })
  }

  /// Publishes `nextPartialResult(initialResult, output)`.
  ///
  /// ```swift
  /// Just(2).reduce(10, +)  // publishes 12
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator.
  /// - Returns: A publisher of the final accumulator.
  @inlinable
  public func reduce<Accumulator>(
    _ initialResult: Accumulator,
    _ nextPartialResult: (Accumulator, Output) -> Accumulator
  ) -> Result<Accumulator, Never>.Publisher {
    Result<Accumulator, Never>.Publisher(.success(nextPartialResult(initialResult, output)))
  }

  /// Publishes `nextPartialResult(initialResult, output)`; a thrown error becomes the failure.
  ///
  /// ```swift
  /// Just(2).tryReduce(10) { try add($0, $1) }  // Result<Int, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator, or throws.
  /// - Returns: A publisher of the final accumulator, or of the error thrown.
  @inlinable
  public func tryReduce<Accumulator>(
    _ initialResult: Accumulator,
    _ nextPartialResult: (Accumulator, Output) throws -> Accumulator
  ) -> Result<Accumulator, any Error>.Publisher {
    Result<Accumulator, any Error>.Publisher(
      Result { try nextPartialResult(initialResult, output) }
    )
  }

  /// Publishes `nextPartialResult(initialResult, output)`, the one step of the scan.
  ///
  /// ```swift
  /// Just(2).scan(10, +)  // publishes 12
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator.
  /// - Returns: A publisher of the accumulator after the value.
  @inlinable
  public func scan<ElementOfResult>(
    _ initialResult: ElementOfResult,
    _ nextPartialResult: (ElementOfResult, Output) -> ElementOfResult
  ) -> Result<ElementOfResult, Never>.Publisher {
    Result<ElementOfResult, Never>.Publisher(.success(nextPartialResult(initialResult, output)))
  }

  /// Publishes `nextPartialResult(initialResult, output)`; a thrown error becomes the failure.
  ///
  /// ```swift
  /// Just(2).tryScan(10) { try add($0, $1) }  // Result<Int, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator, or throws.
  /// - Returns: A publisher of the accumulator after the value, or of the error thrown.
  @inlinable
  public func tryScan<ElementOfResult>(
    _ initialResult: ElementOfResult,
    _ nextPartialResult: (ElementOfResult, Output) throws -> ElementOfResult
  ) -> Result<ElementOfResult, any Error>.Publisher {
    Result<ElementOfResult, any Error>.Publisher(
      Result { try nextPartialResult(initialResult, output) }
    )
  }

  /// Publishes `elements`, then the value.
  ///
  /// ```swift
  /// Just(3).prepend(1, 2)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish first.
  /// - Returns: A sequence publisher of `elements` followed by the value.
  @inlinable
  public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
    prepend(elements)
  }

  /// Publishes the elements of `elements`, then the value.
  ///
  /// ```swift
  /// Just(3).prepend([1, 2])  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: `elements` is read now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish first.
  /// - Returns: A sequence publisher of `elements` followed by the value.
  @inlinable
  public func prepend<Elements: Sequence>(
    _ elements: Elements
  ) -> Publishers.Sequence<[Output], Never> where Elements.Element == Output {
    // `elements + [output]`, as Combine's: the calls made on `elements` (two
    // `underestimatedCount`s, then one iteration) are Combine's
    // (OpenCombine's `JustTests.testPrependOperatorSpecialization`).
    Publishers.Sequence<[Output], Never>(sequence: elements + [output])
  }

  /// Publishes the value, then `elements`.
  ///
  /// ```swift
  /// Just(1).append(2, 3)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish after the value.
  /// - Returns: A sequence publisher of the value followed by `elements`.
  @inlinable
  public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
    append(elements)
  }

  /// Publishes the value, then the elements of `elements`.
  ///
  /// ```swift
  /// Just(1).append([2, 3])  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: `elements` is read now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish after the value.
  /// - Returns: A sequence publisher of the value followed by `elements`.
  @inlinable
  public func append<Elements: Sequence>(
    _ elements: Elements
  ) -> Publishers.Sequence<[Output], Never> where Elements.Element == Output {
    var all = [output]
    all.append(contentsOf: elements)
    return Publishers.Sequence<[Output], Never>(sequence: all)
  }
}

extension Just where Output: Comparable {
  /// Returns `self`: the only value is the smallest.
  ///
  /// ```swift
  /// Just(3).min()  // Just(3)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This `Just`.
  @inlinable
  public func min() -> Just<Output> {
    self
  }

  /// Returns `self`: the only value is the largest.
  ///
  /// ```swift
  /// Just(3).max()  // Just(3)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This `Just`.
  @inlinable
  public func max() -> Just<Output> {
    self
  }
}

extension Just where Output: Equatable {
  /// Publishes whether the value equals `output`.
  ///
  /// ```swift
  /// Just(3).contains(3)  // Just(true)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: The value to look for.
  /// - Returns: A `Just` of the answer.
  @inlinable
  public func contains(_ output: Output) -> Just<Bool> {
    Just<Bool>(self.output == output)
  }
}
