public import StreamCore

// Transforming and filtering operators on `Just`. Each one works on the value at once and returns
// another simple publisher, so a chain such as `Just(1).map(f).filter(p)` builds no operator
// structs and no subscriptions.

extension Just {
  /// Transforms the value with `transform`, giving another `Just`.
  ///
  /// ```swift
  /// Just(2).map { $0 * 10 }  // Just(20)
  /// ```
  ///
  /// > Thread safety: `transform` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the value into the new value.
  /// - Returns: A `Just` that publishes the transformed value.
  @inlinable
  public func map<ElementOfResult>(
    _ transform: (Output) -> ElementOfResult
  ) -> Just<ElementOfResult> {
    Just<ElementOfResult>(transform(output))
  }

  /// Transforms the value with a throwing closure; a thrown error becomes the failure.
  ///
  /// ```swift
  /// Just("7").tryMap { try parse($0) }  // Result<Int, any Error>.Publisher
  /// ```
  ///
  /// > Thread safety: `transform` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the value into the new value, or throws.
  /// - Returns: A publisher of the transformed value, or of the error `transform` threw.
  @inlinable
  public func tryMap<ElementOfResult>(
    _ transform: (Output) throws -> ElementOfResult
  ) -> Result<ElementOfResult, any Error>.Publisher {
    Result<ElementOfResult, any Error>.Publisher(Result { try transform(output) })
  }

  /// Transforms the value and publishes the result unless it is `nil`.
  ///
  /// ```swift
  /// Just("42").compactMap { Int($0) }  // Optional.Publisher(42)
  /// ```
  ///
  /// > Thread safety: `transform` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the value into an optional new value.
  /// - Returns: A publisher of the new value, or one that just finishes when it is `nil`.
  @inlinable
  public func compactMap<ElementOfResult>(
    _ transform: (Output) -> ElementOfResult?
  ) -> Optional<ElementOfResult>.Publisher {
    Optional<ElementOfResult>.Publisher(transform(output))
  }

  /// Publishes the value only if `isIncluded` accepts it.
  ///
  /// ```swift
  /// Just(3).filter { $0.isMultiple(of: 2) }  // finishes without a value
  /// ```
  ///
  /// > Thread safety: `isIncluded` runs once, now, on the calling thread; the result is a value
  /// > that may be subscribed from any thread.
  ///
  /// - Parameter isIncluded: Returns `true` to keep the value.
  /// - Returns: A publisher of the value, or one that just finishes.
  @inlinable
  public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(isIncluded(output) ? output : nil)
  }

  /// Publishes nothing and finishes; the value is dropped.
  ///
  /// ```swift
  /// Just(1).ignoreOutput()  // Empty<Int, Never>
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: An `Empty` that finishes at once.
  @inlinable
  public func ignoreOutput() -> Empty<Output, Never> {
    Empty<Output, Never>()
  }

  /// Changes the failure type; a `Just` never fails, so only the type changes.
  ///
  /// ```swift
  /// let p: Result<Int, URLError>.Publisher = Just(1).setFailureType(to: URLError.self)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter failureType: The failure type of the new publisher.
  /// - Returns: A publisher of the same value with the new failure type.
  @inlinable
  public func setFailureType<NewFailure: Error>(
    to failureType: NewFailure.Type
  ) -> Result<Output, NewFailure>.Publisher {
    Result<Output, NewFailure>.Publisher(.success(output))
  }

  /// Changes the failure type; `transform` is never called because a `Just` never fails.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Just(1).mapError { _ -> MyError in }
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Would turn the failure into a new one; never called.
  /// - Returns: A publisher of the same value with the new failure type.
  @inlinable
  public func mapError<NewFailure: Error>(
    _ transform: (Never) -> NewFailure
  ) -> Result<Output, NewFailure>.Publisher {
    Result<Output, NewFailure>.Publisher(.success(output))
  }

  /// Returns `self`: a `Just` never fails, so there is no error to replace.
  ///
  /// ```swift
  /// Just(1).replaceError(with: 0)  // Just(1)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: Unused.
  /// - Returns: This `Just`.
  @inlinable
  public func replaceError(with output: Output) -> Just<Output> {
    self
  }

  /// Returns `self`: a `Just` is never empty.
  ///
  /// ```swift
  /// Just(1).replaceEmpty(with: 0)  // Just(1)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: Unused.
  /// - Returns: This `Just`.
  @inlinable
  public func replaceEmpty(with output: Output) -> Just<Output> {
    self
  }

  /// Returns `self`: a `Just` never fails, so there is nothing to retry.
  ///
  /// ```swift
  /// Just(1).retry(3)  // Just(1)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter times: Unused.
  /// - Returns: This `Just`.
  @inlinable
  public func retry(_ times: Int) -> Just<Output> {
    self
  }

  /// Returns `self`: a single value has no duplicate before it.
  ///
  /// ```swift
  /// Just(1).removeDuplicates { $0 == $1 }  // Just(1)
  /// ```
  ///
  /// > Thread safety: `predicate` is never called. The result is a value that may be subscribed
  /// > from any thread.
  ///
  /// - Parameter predicate: Would compare a value with the one before it; never called.
  /// - Returns: This `Just`.
  @inlinable
  public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> {
    self
  }

  /// Publishes the value, or what `predicate` throws. As in Combine, `predicate` compares the
  /// value with itself once, now.
  ///
  /// ```swift
  /// Just(1).tryRemoveDuplicates { try same($0, $1) }  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Compares a value with the one before it; called once with the value
  ///   twice.
  /// - Returns: A publisher of the value, with `any Error` as its failure type.
  @inlinable
  public func tryRemoveDuplicates(
    by predicate: (Output, Output) throws -> Bool
  ) -> Result<Output, any Error>.Publisher {
    Result<Output, any Error>.Publisher(
      Result {
        _ = try predicate(output, output)
        return output
      }
    )
  }
}

extension Just where Output: Equatable {
  /// Returns `self`: a single value has no duplicate before it.
  ///
  /// ```swift
  /// Just(1).removeDuplicates()  // Just(1)
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: This `Just`.
  @inlinable
  public func removeDuplicates() -> Just<Output> {
    self
  }
}
