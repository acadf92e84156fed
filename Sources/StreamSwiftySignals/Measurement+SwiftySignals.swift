public import Foundation
import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Duration {
  /// Converts a Foundation duration measurement, through seconds.
  @usableFromInline
  static func swifty(_ measurement: Measurement<UnitDuration>) -> Duration {
    .seconds(measurement.converted(to: .seconds).value)
  }
}

extension Publisher {
  /// `throttle(pause:scheduler:)` with a Foundation measurement.
  ///
  /// ```swift
  /// taps.throttle(pause: Measurement(value: 1, unit: .seconds), scheduler: DispatchQueue.main)
  /// ```
  ///
  /// <!-- marbles:throttle-pause -->
  /// Marble diagram of `throttle(pause: .nanoseconds(4), scheduler:)`, made by running it (a
  /// character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -abc----d-e--|
  /// output  -a------d----|
  /// ```
  ///
  /// ![Marble diagram of throttle(pause: .nanoseconds(4), scheduler:)](marble-throttle-pause)
  /// <!-- /marbles:throttle-pause -->
  ///
  /// > Thread safety: As `throttle(pause:scheduler:)`.
  ///
  /// - Parameters:
  ///   - pause: The least time between two passed values.
  ///   - scheduler: The scheduler whose clock measures the pause.
  /// - Returns: A publisher that drops values arriving within `pause` of the last passed one.
  public func throttle<S: Scheduler>(
    pause: Measurement<UnitDuration>,
    scheduler: S
  ) -> Publishers.ThrottlePause<Self, S> {
    throttle(pause: .swifty(pause), scheduler: scheduler)
  }

  /// `debounce(timeout:scheduler:)` with a Foundation measurement.
  ///
  /// ```swift
  /// typing.debounce(timeout: Measurement(value: 300, unit: .milliseconds), scheduler: queue)
  /// ```
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
  /// > Thread safety: As `debounce(timeout:scheduler:)`.
  ///
  /// - Parameters:
  ///   - timeout: The quiet time after the last value before it is published.
  ///   - scheduler: The scheduler that times and delivers the values.
  /// - Returns: A publisher that publishes the last value of each burst.
  public func debounce<S: Scheduler>(
    timeout: Measurement<UnitDuration>,
    scheduler: S
  ) -> Publishers.Debounce<Self, S> {
    debounce(timeout: .swifty(timeout), scheduler: scheduler)
  }
}

extension TimerSignal {
  /// ``fire(after:)`` with a Foundation measurement, as SwiftySignals takes it.
  ///
  /// ```swift
  /// timer.fire(after: Measurement(value: 10, unit: .seconds))
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter delay: The time until the first tick, and between ticks when repeating.
  public func fire(after delay: Measurement<UnitDuration>) {
    fire(after: .swifty(delay))
  }
}
