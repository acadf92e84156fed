public import StreamCore

// Transforming operators on `Result.Publisher`. A `Result.Publisher` sends its success value or
// fails at once, so each operator works on the stored result now and returns another
// `Result.Publisher` (or an `Empty`), building no operator structs and no subscriptions. A
// failure passes through unchanged; the `try` forms turn it into `any Error`.

extension Result.Publisher {
  /// Transforms the success value with `transform`; a failure passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(2).map { $0 * 10 }  // publishes 20
  /// ```
  ///
  /// > Thread safety: `transform` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the value into the new value.
  /// - Returns: A publisher of the transformed value, or of the same failure.
  @inlinable
  public func map<ElementOfResult>(
    _ transform: (Output) -> ElementOfResult
  ) -> Result<ElementOfResult, Failure>.Publisher {
    Result<ElementOfResult, Failure>.Publisher(result.map(transform))
  }

  /// Transforms the success value with a throwing closure; a thrown error becomes the failure.
  ///
  /// ```swift
  /// Result<String, MyError>.Publisher("7").tryMap { try parse($0) }
  /// ```
  ///
  /// > Thread safety: `transform` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the value into the new value, or throws.
  /// - Returns: A publisher of the transformed value, the thrown error or the original failure.
  @inlinable
  public func tryMap<ElementOfResult>(
    _ transform: (Output) throws -> ElementOfResult
  ) -> Result<ElementOfResult, any Error>.Publisher {
    specializedTry(transform)
  }

  /// Transforms the failure with `transform`; a success value passes through.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(.failure(e)).mapError { AppError($0) }
  /// ```
  ///
  /// > Thread safety: `transform` runs at most once, now, on the calling thread; the result is a
  /// > value that may be subscribed from any thread.
  ///
  /// - Parameter transform: Turns the failure into the new failure.
  /// - Returns: A publisher of the same value, or of the transformed failure.
  @inlinable
  public func mapError<TransformedFailure: Error>(
    _ transform: (Failure) -> TransformedFailure
  ) -> Result<Output, TransformedFailure>.Publisher {
    Result<Output, TransformedFailure>.Publisher(result.mapError(transform))
  }

  /// Publishes `output` in place of a failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(.failure(e)).replaceError(with: 0)  // publishes 0
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: The value to publish if the result is a failure.
  /// - Returns: A publisher that never fails.
  @inlinable
  public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
    switch result {
    case .success(let value): Result<Output, Never>.Publisher(.success(value))
    case .failure: Result<Output, Never>.Publisher(.success(output))
    }
  }

  /// Returns `self`: a `Result.Publisher` is never empty, it either publishes or fails.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(1).replaceEmpty(with: 0)  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter output: Unused.
  /// - Returns: This publisher.
  @inlinable
  public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher {
    self
  }

  /// Returns `self`: subscribing again would fail again with the same error.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(.failure(e)).retry(3)  // fails with e
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter times: Unused.
  /// - Returns: This publisher.
  @inlinable
  public func retry(_ times: Int) -> Result<Output, Failure>.Publisher {
    self
  }

  /// Returns `self`: a single value has no duplicate before it; `predicate` is never called.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(1).removeDuplicates { $0 == $1 }  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Would compare a value with the one before it; never called.
  /// - Returns: This publisher.
  @inlinable
  public func removeDuplicates(
    by predicate: (Output, Output) -> Bool
  ) -> Result<Output, Failure>.Publisher {
    self
  }

  /// Publishes the value, or the failure as `any Error`. As in Combine, `predicate` compares the
  /// value with itself once, now, so that an error it throws is the failure.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(1).tryRemoveDuplicates { try same($0, $1) }  // publishes 1
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Parameter predicate: Compares a value with the one before it; called once with the value
  ///   twice.
  /// - Returns: This publisher with `any Error` as its failure type.
  @inlinable
  public func tryRemoveDuplicates(
    by predicate: (Output, Output) throws -> Bool
  ) -> Result<Output, any Error>.Publisher {
    specializedTry { value in
      _ = try predicate(value, value)
      return value
    }
  }

  /// Runs `body` on the success value, turning a thrown error or the original failure into
  /// `any Error`.
  @inlinable
  func specializedTry<T>(
    _ body: (Output) throws -> T
  ) -> Result<T, any Error>.Publisher {
    switch result {
    case .success(let value):
      Result<T, any Error>.Publisher(Result<T, any Error> { try body(value) })
    case .failure(let error): Result<T, any Error>.Publisher(.failure(error))
    }
  }
}

extension Result.Publisher where Failure == Never {
  /// Changes the failure type; a publisher whose failure is `Never` can't fail, so only the type
  /// changes.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Result<Int, Never>.Publisher(1)
  ///   .setFailureType(to: MyError.self)
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
    Result<Output, NewFailure>.Publisher(.success(result.get()))
  }
}

extension Result.Publisher {
  /// Publishes nothing and finishes, whatever the result: a success's value and a failure's
  /// error are both dropped, as Combine's specialisation does.
  ///
  /// ```swift
  /// Result<Int, MyError>.Publisher(.failure(MyError())).ignoreOutput()  // finishes
  /// ```
  ///
  /// > Thread safety: The result is a value that may be subscribed from any thread.
  ///
  /// - Returns: An `Empty` that finishes at once.
  @inlinable
  public func ignoreOutput() -> Empty<Output, Failure> {
    Empty<Output, Failure>()
  }
}
