public import StreamCore

extension Publisher {
  /// Publishes a value only after `timeout` has passed without another value (SwiftySignals'
  /// `debounce(timeout:)`).
  ///
  /// ```swift
  /// let cancellable = typing.debounce(timeout: .milliseconds(300), scheduler: DispatchQueue.main)
  ///   .sink { search($0) }
  /// ```
  ///
  /// It is `debounce(for:scheduler:)` with the duration converted to the scheduler's stride, in
  /// whole nanoseconds. A stream faster than `timeout` never publishes until it pauses or
  /// finishes. There is no default scheduler: pass the one to time and deliver on.
  ///
  /// > Thread safety: Values are delivered on `scheduler`; `request(_:)` and `cancel()` are safe
  /// > from any thread.
  ///
  /// - Parameters:
  ///   - timeout: The quiet time after the last value before it is published.
  ///   - scheduler: The scheduler that times and delivers the values.
  /// - Returns: A publisher that publishes the last value of each burst.
  public func debounce<S: Scheduler>(
    timeout: Duration,
    scheduler: S
  ) -> Publishers.Debounce<Self, S> {
    debounce(for: .swiftyStride(timeout), scheduler: scheduler)
  }
}
