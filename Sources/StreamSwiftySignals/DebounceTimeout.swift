import PropertyWrappers
public import SignalOperators
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
  /// whole nanoseconds. A stream faster than `timeout` publishes nothing until it pauses; a
  /// value still waiting when the upstream finishes is dropped, as in `debounce(for:)`. There is
  /// no default scheduler: pass the one to time and deliver on.
  ///
  /// <!-- marbles:debounce-timeout -->
  /// Marble diagram of `debounce(timeout: .nanoseconds(3), scheduler:)`, made by running it (a
  /// character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -ab----c-d|
  /// output  -----b----|
  /// ```
  ///
  /// ![Marble diagram of debounce(timeout: .nanoseconds(3), scheduler:)](marble-debounce-timeout)
  /// <!-- /marbles:debounce-timeout -->
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
