public import StreamCore

// Operators on `Result.Publisher` that reduce, compare or select. With one value the answer is
// known at once; a failure passes through unchanged, or as `any Error` in the `try` forms.

extension Result.Publisher {
  /// Publishes the value in a one-element array; a failure passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(1).collect()  // publishes [1]
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of `[value]`, or of the same failure.
  @inlinable
  public func collect() -> Result<[Output], Failure>.Publisher {
    Result<[Output], Failure>.Publisher(result.map { [$0] })
  }

  /// Publishes the number of values, 1; a failure passes through.
  ///
  /// ```swift
  /// Result<String, MyError>.Publisher("a").count()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of 1, or of the same failure.
  @inlinable
  public func count() -> Result<Int, Failure>.Publisher {
    Result<Int, Failure>.Publisher(result.map { _ in 1 })
  }

  /// Returns `self`: the value is the first one.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(1).first()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func first() -> Result<Output, Failure>.Publisher {
    self
  }

  /// Returns `self`: the value is the last one.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(1).last()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func last() -> Result<Output, Failure>.Publisher {
    self
  }

  /// Returns `self`: the only value is the smallest; `areInIncreasingOrder` is never called.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(3).min { $0 < $1 }  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Would order two values; never called.
  /// - Returns: This publisher.
  @inlinable
  public func min(
    by areInIncreasingOrder: (Output, Output) -> Bool
  ) -> Result<Output, Failure>.Publisher {
    self
  }

  /// Publishes the value, or the failure as `any Error`. As in Combine, `areInIncreasingOrder`
  /// compares the value with itself once, now, so that an error it throws is the failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(3).tryMin { try less($0, $1) }  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Orders two values; called once with the value twice.
  /// - Returns: This publisher with `any Error` as its failure type.
  @inlinable
  public func tryMin(
    by areInIncreasingOrder: (Output, Output) throws -> Bool
  ) -> Result<Output, any Error>.Publisher {
    specializedTry { value in
      _ = try areInIncreasingOrder(value, value)
      return value
    }
  }

  /// Returns `self`: the only value is the largest; `areInIncreasingOrder` is never called.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(3).max { $0 < $1 }  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Would order two values; never called.
  /// - Returns: This publisher.
  @inlinable
  public func max(
    by areInIncreasingOrder: (Output, Output) -> Bool
  ) -> Result<Output, Failure>.Publisher {
    self
  }

  /// Publishes the value, or the failure as `any Error`. As in Combine, `areInIncreasingOrder`
  /// compares the value with itself once, now, so that an error it throws is the failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(3).tryMax { try less($0, $1) }  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Orders two values; called once with the value twice.
  /// - Returns: This publisher with `any Error` as its failure type.
  @inlinable
  public func tryMax(
    by areInIncreasingOrder: (Output, Output) throws -> Bool
  ) -> Result<Output, any Error>.Publisher {
    specializedTry { value in
      _ = try areInIncreasingOrder(value, value)
      return value
    }
  }

  /// Publishes whether `predicate` accepts the value; a failure passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(4).allSatisfy { $0 > 3 }  // publishes true
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value.
  /// - Returns: A publisher of the answer, or of the same failure.
  @inlinable
  public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(result.map(predicate))
  }

  /// Publishes whether a throwing `predicate` accepts the value; a thrown error or the failure
  /// becomes the failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(4).tryAllSatisfy { try check($0) }
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value, or throws.
  /// - Returns: A publisher of the answer, the thrown error or the original failure.
  @inlinable
  public func tryAllSatisfy(
    _ predicate: (Output) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    specializedTry(predicate)
  }

  /// Publishes whether `predicate` accepts the value; a failure passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(4).contains { $0 > 5 }  // publishes false
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value.
  /// - Returns: A publisher of the answer, or of the same failure.
  @inlinable
  public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(result.map(predicate))
  }

  /// Publishes whether a throwing `predicate` accepts the value; a thrown error or the failure
  /// becomes the failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(4).tryContains { try check($0) }
  /// ```
  ///
  /// > Thread safety: `predicate` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests the value, or throws.
  /// - Returns: A publisher of the answer, the thrown error or the original failure.
  @inlinable
  public func tryContains(
    where predicate: (Output) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    specializedTry(predicate)
  }

  /// Publishes `nextPartialResult(initialResult, value)`; a failure passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(2).reduce(10, +)  // publishes 12
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs at most once, now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator.
  /// - Returns: A publisher of the final accumulator, or of the same failure.
  @inlinable
  public func reduce<Accumulator>(
    _ initialResult: Accumulator,
    _ nextPartialResult: (Accumulator, Output) -> Accumulator
  ) -> Result<Accumulator, Failure>.Publisher {
    Result<Accumulator, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
  }

  /// Publishes `nextPartialResult(initialResult, value)`; a thrown error or the failure becomes
  /// the failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(2).tryReduce(10) { try add($0, $1) }
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs at most once, now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator, or throws.
  /// - Returns: A publisher of the final accumulator, the thrown error or the original failure.
  @inlinable
  public func tryReduce<Accumulator>(
    _ initialResult: Accumulator,
    _ nextPartialResult: (Accumulator, Output) throws -> Accumulator
  ) -> Result<Accumulator, any Error>.Publisher {
    specializedTry { try nextPartialResult(initialResult, $0) }
  }

  /// Publishes `nextPartialResult(initialResult, value)`, the one step of the scan; a failure
  /// passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(2).scan(10, +)  // publishes 12
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs at most once, now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator.
  /// - Returns: A publisher of the accumulator after the value, or of the same failure.
  @inlinable
  public func scan<ElementOfResult>(
    _ initialResult: ElementOfResult,
    _ nextPartialResult: (ElementOfResult, Output) -> ElementOfResult
  ) -> Result<ElementOfResult, Failure>.Publisher {
    Result<ElementOfResult, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
  }

  /// Publishes `nextPartialResult(initialResult, value)`; a thrown error or the failure becomes
  /// the failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(2).tryScan(10) { try add($0, $1) }
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs at most once, now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds the value into the accumulator, or throws.
  /// - Returns: A publisher of the accumulator after the value, the thrown error or the original
  ///   failure.
  @inlinable
  public func tryScan<ElementOfResult>(
    _ initialResult: ElementOfResult,
    _ nextPartialResult: (ElementOfResult, Output) throws -> ElementOfResult
  ) -> Result<ElementOfResult, any Error>.Publisher {
    specializedTry { try nextPartialResult(initialResult, $0) }
  }
}

extension Result.Publisher where Output: Equatable {
  /// Publishes whether the value equals `output`; a failure passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(3).contains(3)  // publishes true
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: The value to look for.
  /// - Returns: A publisher of the answer, or of the same failure.
  @inlinable
  public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(result.map { $0 == output })
  }

  /// Returns `self`: a single value has no duplicate before it.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(1).removeDuplicates()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func removeDuplicates() -> Result<Output, Failure>.Publisher {
    self
  }
}

extension Result.Publisher where Output: Comparable {
  /// Returns `self`: the only value is the smallest.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(3).min()  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func min() -> Result<Output, Failure>.Publisher {
    self
  }

  /// Returns `self`: the only value is the largest.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(3).max()  // publishes 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This publisher.
  @inlinable
  public func max() -> Result<Output, Failure>.Publisher {
    self
  }
}
