public import Foundation
public import SignalOperators
public import StreamCore

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

// `RunLoop` is not a `Scheduler` (see `RunLoopScheduler`); these overloads take one where Combine
// code passes one, and schedule on its `scheduler`.
extension Publisher {
  /// Delivers values and completion on `runLoop`: `receive(on: runLoop.scheduler)`.
  ///
  /// ```swift
  /// let cancellable = values.receive(on: RunLoop.main).sink { print($0) }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - runLoop: The run loop to deliver on.
  ///   - options: Ignored; a run loop takes no options.
  /// - Returns: `receive(on:options:)` on the run loop's ``RunLoopScheduler``.
  public func receive(
    on runLoop: RunLoop,
    options: RunLoop.SchedulerOptions? = nil
  ) -> Publishers.ReceiveOn<Self, RunLoopScheduler> {
    receive(on: runLoop.scheduler, options: options)
  }

  /// Subscribes, requests and cancels upstream on `runLoop`: `subscribe(on: runLoop.scheduler)`.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - runLoop: The run loop to subscribe on.
  ///   - options: Ignored; a run loop takes no options.
  /// - Returns: `subscribe(on:options:)` on the run loop's ``RunLoopScheduler``.
  public func subscribe(
    on runLoop: RunLoop,
    options: RunLoop.SchedulerOptions? = nil
  ) -> Publishers.SubscribeOn<Self, RunLoopScheduler> {
    subscribe(on: runLoop.scheduler, options: options)
  }

  /// `debounce(for:scheduler:options:)` with the run loop's ``RunLoopScheduler``.
  ///
  /// ```swift
  /// let cancellable = query.debounce(for: .milliseconds(300), scheduler: RunLoop.main)
  ///   .sink { print($0) }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - dueTime: How long the upstream must be quiet before the latest value is sent.
  ///   - scheduler: The run loop to time and deliver on.
  ///   - options: Ignored; a run loop takes no options.
  /// - Returns: The debounced publisher.
  public func debounce(
    for dueTime: RunLoop.SchedulerTimeType.Stride,
    scheduler: RunLoop,
    options: RunLoop.SchedulerOptions? = nil
  ) -> Publishers.Debounce<Self, RunLoopScheduler> {
    debounce(for: dueTime, scheduler: scheduler.scheduler, options: options)
  }

  /// `throttle(for:scheduler:latest:)` with the run loop's ``RunLoopScheduler``.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - interval: The window in which at most one value is sent.
  ///   - scheduler: The run loop to time and deliver on.
  ///   - latest: Whether to send the window's latest value rather than its first.
  /// - Returns: The throttled publisher.
  public func throttle(
    for interval: RunLoop.SchedulerTimeType.Stride,
    scheduler: RunLoop,
    latest: Bool
  ) -> Publishers.Throttle<Self, RunLoopScheduler> {
    throttle(for: interval, scheduler: scheduler.scheduler, latest: latest)
  }

  /// `delay(for:tolerance:scheduler:options:)` with the run loop's ``RunLoopScheduler``.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - interval: How long to delay each value and the completion.
  ///   - tolerance: How late each delivery may be.
  ///   - scheduler: The run loop to deliver on.
  ///   - options: Ignored; a run loop takes no options.
  /// - Returns: The delayed publisher.
  public func delay(
    for interval: RunLoop.SchedulerTimeType.Stride,
    tolerance: RunLoop.SchedulerTimeType.Stride? = nil,
    scheduler: RunLoop,
    options: RunLoop.SchedulerOptions? = nil
  ) -> Publishers.Delay<Self, RunLoopScheduler> {
    delay(for: interval, tolerance: tolerance, scheduler: scheduler.scheduler, options: options)
  }

  /// `timeout(_:scheduler:options:customError:)` with the run loop's ``RunLoopScheduler``.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - interval: How long the upstream may stay quiet.
  ///   - scheduler: The run loop to time and deliver on.
  ///   - options: Ignored; a run loop takes no options.
  ///   - customError: The failure to send on a timeout; `nil` finishes instead.
  /// - Returns: The publisher with a timeout.
  public func timeout(
    _ interval: RunLoop.SchedulerTimeType.Stride,
    scheduler: RunLoop,
    options: RunLoop.SchedulerOptions? = nil,
    customError: (() -> Failure)? = nil
  ) -> Publishers.Timeout<Self, RunLoopScheduler> {
    timeout(interval, scheduler: scheduler.scheduler, options: options, customError: customError)
  }

  /// `measureInterval(using:options:)` with the run loop's ``RunLoopScheduler``.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - scheduler: The run loop whose clock measures.
  ///   - options: Ignored; a run loop takes no options.
  /// - Returns: A publisher of the time between values.
  public func measureInterval(
    using scheduler: RunLoop,
    options: RunLoop.SchedulerOptions? = nil
  ) -> Publishers.MeasureInterval<Self, RunLoopScheduler> {
    measureInterval(using: scheduler.scheduler, options: options)
  }
}

#endif
