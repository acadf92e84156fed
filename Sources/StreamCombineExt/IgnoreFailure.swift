import SignalOperators
public import StreamCore

extension Publisher {
  /// Ends quietly instead of failing: an upstream failure finishes the publisher, or, with
  /// `completeImmediately: false`, leaves it open without ever completing.
  ///
  /// ```swift
  /// let subject = PassthroughSubject<Int, TestError>()
  /// let cancellable = subject.ignoreFailure().sink(
  ///   receiveCompletion: { print($0) },  // finished
  ///   receiveValue: { print($0) }        // 1
  /// )
  /// subject.send(1)
  /// subject.send(completion: .failure(TestError()))
  /// ```
  ///
  /// A `catch` that replaces the failure with `Empty(completeImmediately:)`. Values and demand
  /// pass through until then.
  ///
  /// > Thread safety: As `catch`: values on the upstream's thread; `request(_:)` and `cancel()`
  /// > are safe from any thread.
  ///
  /// - Parameter completeImmediately: Whether a failure finishes the publisher (the default)
  ///   or leaves it without a completion.
  /// - Returns: A publisher that never fails.
  public func ignoreFailure(completeImmediately: Bool = true) -> AnyPublisher<Output, Never> {
    self.catch { _ in Empty<Output, Never>(completeImmediately: completeImmediately) }
      .eraseToAnyPublisher()
  }

  /// Ends quietly instead of failing, and gives the result the failure type the next operator
  /// needs.
  ///
  /// ```swift
  /// let quiet = PassthroughSubject<Int, TestError>()
  ///   .ignoreFailure(setFailureType: URLError.self)  // never fails, typed URLError
  /// ```
  ///
  /// `ignoreFailure(completeImmediately:)` then `setFailureType(to:)`.
  ///
  /// > Thread safety: As `ignoreFailure(completeImmediately:)`.
  ///
  /// - Parameters:
  ///   - newFailureType: The failure type to publish.
  ///   - completeImmediately: Whether a failure finishes the publisher (the default) or leaves
  ///     it without a completion.
  /// - Returns: A publisher that never fails, with `NewFailure` as its failure type.
  public func ignoreFailure<NewFailure: Error>(
    setFailureType newFailureType: NewFailure.Type,
    completeImmediately: Bool = true
  ) -> AnyPublisher<Output, NewFailure> {
    ignoreFailure(completeImmediately: completeImmediately)
      .setFailureType(to: newFailureType)
      .eraseToAnyPublisher()
  }
}
