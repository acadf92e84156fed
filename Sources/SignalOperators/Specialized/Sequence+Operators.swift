public import StreamCore

// Transforming, filtering and combining operators on `Publishers.Sequence`. Each applies the
// standard library's operation to the sequence and returns another sequence publisher, so
// `[1, 2, 3].publisher.map(f).filter(p)` builds no operator structs and no subscriptions. Those
// that take a closure run it over the whole sequence at once, when the operator is called, not
// as each subscriber asks for values; `dropFirst`, `drop(while:)` and `prefix(_:)` stay lazy.
// As in Combine, the eager ones never return on an endless sequence such as `(1...)`: transform
// a `lazy` view of it before `.publisher` instead.

extension Publishers.Sequence {
  /// Transforms every element with `transform`, giving a sequence publisher of the results.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.map { $0 * 10 }  // publishes 10, 20, 30
  /// ```
  ///
  /// The whole sequence is read at once, so don't call this on an endless one: use its `lazy`
  /// view before `.publisher` instead.
  ///
  /// > Thread safety: `transform` runs over every element now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns an element into a new value.
  /// - Returns: A sequence publisher of the transformed elements.
  @inlinable
  public func map<ElementOfResult>(
    _ transform: (Elements.Element) -> ElementOfResult
  ) -> Publishers.Sequence<[ElementOfResult], Failure> {
    Publishers.Sequence<[ElementOfResult], Failure>(sequence: sequence.map(transform))
  }

  /// Transforms every element and keeps the results that aren't `nil`.
  ///
  /// ```swift
  /// ["1", "x", "3"].publisher.compactMap { Int($0) }  // publishes 1, 3
  /// ```
  ///
  /// The whole sequence is read at once, so don't call this on an endless one: use its `lazy`
  /// view before `.publisher` instead.
  ///
  /// > Thread safety: `transform` runs over every element now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns an element into an optional new value.
  /// - Returns: A sequence publisher of the non-`nil` results.
  @inlinable
  public func compactMap<ElementOfResult>(
    _ transform: (Elements.Element) -> ElementOfResult?
  ) -> Publishers.Sequence<[ElementOfResult], Failure> {
    Publishers.Sequence<[ElementOfResult], Failure>(sequence: sequence.compactMap(transform))
  }

  /// Keeps the elements `isIncluded` accepts.
  ///
  /// ```swift
  /// [1, 2, 3, 4].publisher.filter { $0.isMultiple(of: 2) }  // publishes 2, 4
  /// ```
  ///
  /// The whole sequence is read at once, so don't call this on an endless one: use its `lazy`
  /// view before `.publisher` instead.
  ///
  /// > Thread safety: `isIncluded` runs over every element now, on the calling thread; the
  /// > result is a value that may be subscribed from any thread.
  ///
  /// - Parameter isIncluded: Returns `true` to keep an element.
  /// - Returns: A sequence publisher of the kept elements.
  @inlinable
  public func filter(
    _ isIncluded: (Elements.Element) -> Bool
  ) -> Publishers.Sequence<[Elements.Element], Failure> {
    Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.filter(isIncluded))
  }

  /// Publishes the running results of `nextPartialResult`, one per element.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.scan(0, +)  // publishes 1, 3, 6
  /// ```
  ///
  /// > Thread safety: `nextPartialResult` runs over every element now, on the calling thread;
  /// > the result is a value that may be subscribed from any thread.
  ///
  /// - Parameters:
  ///   - initialResult: The starting accumulator.
  ///   - nextPartialResult: Folds an element into the accumulator.
  /// - Returns: A sequence publisher of the accumulator after each element.
  @inlinable
  public func scan<ElementOfResult>(
    _ initialResult: ElementOfResult,
    _ nextPartialResult: (ElementOfResult, Elements.Element) -> ElementOfResult
  ) -> Publishers.Sequence<[ElementOfResult], Failure> {
    var accumulator = initialResult
    var results: [ElementOfResult] = []
    results.reserveCapacity(sequence.underestimatedCount)
    for element in sequence {
      accumulator = nextPartialResult(accumulator, element)
      results.append(accumulator)
    }
    return Publishers.Sequence<[ElementOfResult], Failure>(sequence: results)
  }

  /// Replaces each `nil` element with `output`.
  ///
  /// ```swift
  /// [1, nil, 3].publisher.replaceNil(with: 0)  // publishes 1, 0, 3
  /// ```
  ///
  /// > Thread safety: The sequence is read now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter output: The value to publish in place of `nil`.
  /// - Returns: A sequence publisher of the unwrapped elements.
  @inlinable
  public func replaceNil<ElementOfResult>(
    with output: ElementOfResult
  ) -> Publishers.Sequence<[ElementOfResult], Failure>
  where Elements.Element == ElementOfResult? {
    Publishers.Sequence<[ElementOfResult], Failure>(sequence: sequence.map { $0 ?? output })
  }

  /// Drops the first `count` elements.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.dropFirst()  // publishes 2, 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread; the
  /// > sequence is read as each subscriber asks for values.
  ///
  /// - Parameter count: How many elements to drop; must not be negative.
  /// - Returns: A sequence publisher of the remaining elements.
  @inlinable
  public func dropFirst(
    _ count: Int = 1
  ) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
    Publishers.Sequence<DropFirstSequence<Elements>, Failure>(sequence: sequence.dropFirst(count))
  }

  /// Drops elements while `predicate` accepts them, then publishes the rest.
  ///
  /// ```swift
  /// [1, 2, 5, 1].publisher.drop { $0 < 3 }  // publishes 5, 1
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread, until it first returns
  /// > `false`; the result is a value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` to drop an element.
  /// - Returns: A sequence publisher of the elements from the first rejected one on.
  @inlinable
  public func drop(
    while predicate: (Elements.Element) -> Bool
  ) -> Publishers.Sequence<DropWhileSequence<Elements>, Failure> {
    Publishers.Sequence<DropWhileSequence<Elements>, Failure>(
      sequence: sequence.drop(while: predicate)
    )
  }

  /// Publishes at most the first `maxLength` elements.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.prefix(2)  // publishes 1, 2
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread; the
  /// > sequence is read as each subscriber asks for values.
  ///
  /// - Parameter maxLength: How many elements to publish at most; must not be negative.
  /// - Returns: A sequence publisher of the leading elements.
  @inlinable
  public func prefix(
    _ maxLength: Int
  ) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
    Publishers.Sequence<PrefixSequence<Elements>, Failure>(sequence: sequence.prefix(maxLength))
  }

  /// Publishes elements while `predicate` accepts them.
  ///
  /// ```swift
  /// [1, 2, 5, 1].publisher.prefix { $0 < 3 }  // publishes 1, 2
  /// ```
  ///
  /// > Thread safety: `predicate` runs now, on the calling thread, until it first returns
  /// > `false`; the result is a value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Returns `true` to keep publishing.
  /// - Returns: A sequence publisher of the leading accepted elements.
  @inlinable
  public func prefix(
    while predicate: (Elements.Element) -> Bool
  ) -> Publishers.Sequence<[Elements.Element], Failure> {
    Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.prefix(while: predicate))
  }

  /// Publishes nothing and finishes; the elements are dropped.
  ///
  /// ```swift
  /// [1, 2].publisher.ignoreOutput()  // Empty<Int, Never>
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: An `Empty` that finishes at once.
  @inlinable
  public func ignoreOutput() -> Empty<Elements.Element, Failure> {
    Empty<Elements.Element, Failure>()
  }

  /// Changes the failure type; a sequence publisher never fails, so only the type changes.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], MyError> = [1].publisher.setFailureType(to: MyError.self)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter failureType: The failure type of the new publisher.
  /// - Returns: A sequence publisher of the same sequence.
  @inlinable
  public func setFailureType<NewFailure: Error>(
    to failureType: NewFailure.Type
  ) -> Publishers.Sequence<Elements, NewFailure> {
    Publishers.Sequence<Elements, NewFailure>(sequence: sequence)
  }
}

extension Publishers.Sequence where Elements.Element: Equatable {
  /// Drops each element equal to the one before it.
  ///
  /// ```swift
  /// [1, 1, 2, 1].publisher.removeDuplicates()  // publishes 1, 2, 1
  /// ```
  ///
  /// > Thread safety: The sequence is read now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Returns: A sequence publisher without consecutive duplicates.
  @inlinable
  public func removeDuplicates() -> Publishers.Sequence<[Elements.Element], Failure> {
    var kept: [Elements.Element] = []
    for element in sequence where kept.last != element {
      kept.append(element)
    }
    return Publishers.Sequence<[Elements.Element], Failure>(sequence: kept)
  }
}

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
  /// Publishes `elements`, then the sequence.
  ///
  /// ```swift
  /// [3].publisher.prepend(1, 2)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish first.
  /// - Returns: A sequence publisher of the joined collection.
  @inlinable
  public func prepend(
    _ elements: Elements.Element...
  ) -> Publishers.Sequence<Elements, Failure> {
    prepend(elements)
  }

  /// Publishes the elements of `elements`, then the sequence.
  ///
  /// ```swift
  /// [3].publisher.prepend(1...2)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: `elements` is read now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish first.
  /// - Returns: A sequence publisher of the joined collection.
  @inlinable
  public func prepend<Other: Sequence>(
    _ elements: Other
  ) -> Publishers.Sequence<Elements, Failure> where Other.Element == Elements.Element {
    var joined = Elements()
    joined.reserveCapacity(sequence.count + elements.underestimatedCount)
    joined.append(contentsOf: elements)
    joined.append(contentsOf: sequence)
    return Publishers.Sequence<Elements, Failure>(sequence: joined)
  }

  /// Publishes the other publisher's sequence, then this one.
  ///
  /// ```swift
  /// [3].publisher.prepend([1, 2].publisher)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter publisher: The sequence publisher whose elements come first.
  /// - Returns: A sequence publisher of the joined collection.
  @inlinable
  public func prepend(
    _ publisher: Publishers.Sequence<Elements, Failure>
  ) -> Publishers.Sequence<Elements, Failure> {
    publisher.append(sequence)
  }

  /// Publishes the sequence, then `elements`.
  ///
  /// ```swift
  /// [1].publisher.append(2, 3)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish last.
  /// - Returns: A sequence publisher of the joined collection.
  @inlinable
  public func append(
    _ elements: Elements.Element...
  ) -> Publishers.Sequence<Elements, Failure> {
    append(elements)
  }

  /// Publishes the sequence, then the elements of `elements`.
  ///
  /// ```swift
  /// [1].publisher.append(2...3)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: `elements` is read now, on the calling thread; the result is a value that
  /// > may be subscribed from any thread.
  ///
  /// - Parameter elements: The values to publish last.
  /// - Returns: A sequence publisher of the joined collection.
  @inlinable
  public func append<Other: Sequence>(
    _ elements: Other
  ) -> Publishers.Sequence<Elements, Failure> where Other.Element == Elements.Element {
    var joined = sequence
    joined.append(contentsOf: elements)
    return Publishers.Sequence<Elements, Failure>(sequence: joined)
  }

  /// Publishes this sequence, then the other publisher's.
  ///
  /// ```swift
  /// [1].publisher.append([2, 3].publisher)  // publishes 1, 2, 3
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter publisher: The sequence publisher whose elements come last.
  /// - Returns: A sequence publisher of the joined collection.
  @inlinable
  public func append(
    _ publisher: Publishers.Sequence<Elements, Failure>
  ) -> Publishers.Sequence<Elements, Failure> {
    append(publisher.sequence)
  }
}
