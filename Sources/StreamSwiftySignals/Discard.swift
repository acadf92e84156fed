import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Drops the first `count` values (SwiftySignals' `discard(first:)`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.discard(first: 1).sink { print($0) }  // skips the replay
  /// ```
  ///
  /// It is `dropFirst(_:)`. Its usual use is skipping the message a replaying ``Signal`` sends to
  /// each new subscriber.
  ///
  /// > Thread safety: As `dropFirst(_:)`; `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter count: How many values to drop; must not be negative.
  /// - Returns: A publisher that skips the first `count` values.
  public func discard(first count: Int) -> Publishers.Drop<Self> {
    dropFirst(count)
  }
}
