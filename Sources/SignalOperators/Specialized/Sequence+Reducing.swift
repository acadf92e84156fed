public import StreamCore

// Operators on `Publishers.Sequence` that reduce the sequence to one answer or pick single
// elements. The answer is computed now, when the operator is called, and published by a
// `Result.Publisher`, a `Just` or (where `Failure == Never`) an `Optional.Publisher`.

extension Publishers.Sequence {
  /// Publishes all the elements in one array.
  ///
  /// ```swift
  /// (1...3).publisher.collect()  // publishes [1, 2, 3]
  /// ```
  ///
  /// > Thread safety: The sequence is read now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the array of elements.
  @inlinable
  public func collect() -> Result<[Elements.Element], Failure>.Publisher {
    Result<[Elements.Element], Failure>.Publisher(.success(Array(sequence)))
  }

  /// Publishes whether `predicate` accepts every element; `true` for an empty sequence.
  ///
  /// ```swift
  /// [2, 4].publisher.allSatisfy { $0.isMultiple(of: 2) }  // publishes true
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests an element.
  /// - Returns: A publisher of the answer.
  @inlinable
  public func allSatisfy(
    _ predicate: (Elements.Element) -> Bool
  ) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(.success(sequence.allSatisfy(predicate)))
  }

  /// Publishes whether a throwing `predicate` accepts every element; a thrown error becomes the
  /// failure.
  ///
  /// ```swift
  /// [2, 4].publisher.tryAllSatisfy { try check($0) }  // Result<Bool, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests an element, or throws.
  /// - Returns: A publisher of the answer, or of the error `predicate` threw.
  @inlinable
  public func tryAllSatisfy(
    _ predicate: (Elements.Element) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    Result<Bool, any Error>.Publisher(Result { try sequence.allSatisfy(predicate) })
  }

  /// Publishes whether `predicate` accepts some element; `false` for an empty sequence.
  ///
  /// ```swift
  /// [1, 2].publisher.contains { $0 > 1 }  // publishes true
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests an element.
  /// - Returns: A publisher of the answer.
  @inlinable
  public func contains(
    where predicate: (Elements.Element) -> Bool
  ) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(.success(sequence.contains(where: predicate)))
  }

  /// Publishes whether a throwing `predicate` accepts some element; a thrown error becomes the
  /// failure.
  ///
  /// ```swift
  /// [1, 2].publisher.tryContains { try check($0) }  // Result<Bool, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter predicate: Tests an element, or throws.
  /// - Returns: A publisher of the answer, or of the error `predicate` threw.
  @inlinable
  public func tryContains(
    where predicate: (Elements.Element) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    Result<Bool, any Error>.Publisher(Result { try sequence.contains(where: predicate) })
  }

  /// Folds every element into an accumulator and publishes the final result.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.reduce(0, +)  // publishes 6
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator, published as is for an empty sequence.
  ///   - nextPartialResult: Folds an element into the accumulator.
  /// - Returns: A publisher of the final accumulator.
  @inlinable
  public func reduce<Accumulator>(
    _ initialResult: Accumulator,
    _ nextPartialResult: (Accumulator, Elements.Element) -> Accumulator
  ) -> Result<Accumulator, Failure>.Publisher {
    Result<Accumulator, Failure>.Publisher(
      .success(sequence.reduce(initialResult, nextPartialResult))
    )
  }

  /// Folds every element with a throwing closure; a thrown error becomes the failure.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.tryReduce(0) { try add($0, $1) }  // Result<Int, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator, published as is for an empty sequence.
  ///   - nextPartialResult: Folds an element into the accumulator, or throws.
  /// - Returns: A publisher of the final accumulator, or of the error thrown.
  @inlinable
  public func tryReduce<Accumulator>(
    _ initialResult: Accumulator,
    _ nextPartialResult: (Accumulator, Elements.Element) throws -> Accumulator
  ) -> Result<Accumulator, any Error>.Publisher {
    Result<Accumulator, any Error>.Publisher(
      Result { try sequence.reduce(initialResult, nextPartialResult) }
    )
  }
}

extension Publishers.Sequence where Elements.Element: Equatable {
  /// Publishes whether the sequence contains `output`.
  ///
  /// ```swift
  /// [1, 2].publisher.contains(2)  // publishes true
  /// ```
  ///
  /// > Thread safety: The sequence is read now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter output: The element to look for.
  /// - Returns: A publisher of the answer.
  @inlinable
  public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(.success(sequence.contains(output)))
  }
}

extension Publishers.Sequence where Elements: Collection {
  /// Publishes the number of elements.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Publishers.Sequence<[Int], MyError>(sequence: [1, 2])
  ///   .count()  // publishes 2
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the count.
  @inlinable
  public func count() -> Result<Int, Failure>.Publisher {
    Result<Int, Failure>.Publisher(.success(sequence.count))
  }

  /// Publishes the elements at the indices in `range`.
  ///
  /// ```swift
  /// [1, 2, 3, 4].publisher.output(in: 1..<3)  // publishes 2, 3
  /// ```
  ///
  /// As in Combine, `range` must be within the collection's bounds (it is the collection's
  /// subscript that reads the elements, and it traps on a range past either end).
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter range: The collection indices of the elements to publish.
  /// - Returns: A sequence publisher of those elements.
  @inlinable
  public func output(
    in range: Range<Elements.Index>
  ) -> Publishers.Sequence<[Elements.Element], Failure> {
    Publishers.Sequence<[Elements.Element], Failure>(sequence: Array(sequence[range]))
  }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
  /// Publishes the number of elements.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.count()  // Just(3)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A `Just` of the count.
  @inlinable
  public func count() -> Just<Int> {
    Just<Int>(sequence.count)
  }
}

extension Publishers.Sequence where Failure == Never {
  /// Publishes the first element `predicate` accepts, if any.
  ///
  /// ```swift
  /// [1, 4, 6].publisher.first { $0 > 3 }  // publishes 4
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` for the element to publish.
  /// - Returns: A publisher of the element, or one that just finishes.
  @inlinable
  public func first(
    where predicate: (Elements.Element) -> Bool
  ) -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.first(where: predicate))
  }

  /// Publishes the smallest element by `areInIncreasingOrder`, if any.
  ///
  /// ```swift
  /// ["bb", "a"].publisher.min { $0.count < $1.count }  // publishes "a"
  /// ```
  ///
  /// > Thread safety: `areInIncreasingOrder` runs now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Returns `true` if its first argument comes first.
  /// - Returns: A publisher of the smallest element, or one that just finishes.
  @inlinable
  public func min(
    by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
  ) -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.min(by: areInIncreasingOrder))
  }

  /// Publishes the largest element by `areInIncreasingOrder`, if any.
  ///
  /// ```swift
  /// ["bb", "a"].publisher.max { $0.count < $1.count }  // publishes "bb"
  /// ```
  ///
  /// > Thread safety: `areInIncreasingOrder` runs now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter areInIncreasingOrder: Returns `true` if its first argument comes first.
  /// - Returns: A publisher of the largest element, or one that just finishes.
  @inlinable
  public func max(
    by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
  ) -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.max(by: areInIncreasingOrder))
  }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
  /// Publishes the smallest element, if any.
  ///
  /// ```swift
  /// [3, 1, 2].publisher.min()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The sequence is read now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the smallest element, or one that just finishes.
  @inlinable
  public func min() -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.min())
  }

  /// Publishes the largest element, if any.
  ///
  /// ```swift
  /// [3, 1, 2].publisher.max()  // publishes 3
  /// ```
  ///
  /// > Thread safety: The sequence is read now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the largest element, or one that just finishes.
  @inlinable
  public func max() -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.max())
  }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
  /// Publishes the first element, if any.
  ///
  /// ```swift
  /// [1, 2].publisher.first()  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the first element, or one that just finishes.
  @inlinable
  public func first() -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.first)
  }

  /// Publishes the element at collection index `index`, if the collection has it.
  ///
  /// ```swift
  /// [1, 2].publisher.output(at: 1)  // publishes 2
  /// ```
  ///
  /// `index` is an index of the collection, as with `subscript`, not a count of elements from
  /// the start; for an `Array` the two are the same.
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter index: The collection index of the element to publish.
  /// - Returns: A publisher of the element, or one that just finishes.
  @inlinable
  public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
    // `indices`, as Combine's: what the collection is asked is part of the behaviour
    // (OpenCombine's `SequenceTests.testOutputAtIndexOperatorSpecialization`).
    Optional<Elements.Element>.Publisher(
      sequence.indices.contains(index) ? sequence[index] : nil
    )
  }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
  /// Publishes the last element, if any.
  ///
  /// ```swift
  /// [1, 2].publisher.last()  // publishes 2
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: A publisher of the last element, or one that just finishes.
  @inlinable
  public func last() -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.last)
  }

  /// Publishes the last element `predicate` accepts, if any.
  ///
  /// ```swift
  /// [1, 4, 6].publisher.last { $0 < 5 }  // publishes 4
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` for the element to publish.
  /// - Returns: A publisher of the element, or one that just finishes.
  @inlinable
  public func last(
    where predicate: (Elements.Element) -> Bool
  ) -> Optional<Elements.Element>.Publisher {
    Optional<Elements.Element>.Publisher(sequence.last(where: predicate))
  }
}
