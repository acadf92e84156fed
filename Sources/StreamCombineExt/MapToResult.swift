import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes each value as `.success`, and the failure as a last `.failure` value; never fails.
  ///
  /// ```swift
  /// let subject = PassthroughSubject<Int, TestError>()
  /// let cancellable = subject.mapToResult().sink { print($0) }
  /// subject.send(1)                                   // success(1)
  /// subject.send(completion: .failure(TestError()))   // failure(Boom), then the finish
  /// ```
  ///
  /// A `map` into `Result` followed by a `catch` that publishes the failure with `Just`: after
  /// a failure the `.failure` value waits for demand, then the publisher finishes. A finish
  /// passes through as it is.
  ///
  /// > Thread safety: Values pass on the upstream's thread; `request(_:)` and `cancel()` are safe
  /// > from any thread, as `catch`'s.
  ///
  /// - Returns: A publisher of results that never fails.
  public func mapToResult() -> AnyPublisher<Result<Output, Failure>, Never> {
    map { value -> Result<Output, Failure> in .success(value) }
      .catch { failure in Just(Result<Output, Failure>.failure(failure)) }
      .eraseToAnyPublisher()
  }
}
