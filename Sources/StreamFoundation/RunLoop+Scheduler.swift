public import Foundation
public import StreamCore

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

/// A run loop as a `Scheduler`, as in Combine: every action runs on the run loop's thread, the
/// next time the loop runs in its default mode.
///
/// ```swift
/// let soon: RunLoop.SchedulerTimeType = RunLoop.main.now.advanced(by: .milliseconds(300))
/// RunLoop.main.schedule(after: soon) { print("300 ms later, on the main thread") }
/// ```
///
/// - `schedule(options:_:)` runs actions in the order they were given, the next time the loop
///   runs (it wakes a waiting loop).
/// - `schedule(after:tolerance:options:_:)` adds a Foundation `Timer`, so actions run in due
///   order; Foundation does not promise an order for timers due at the same instant.
/// - `schedule(after:interval:tolerance:options:_:)` adds a repeating timer; the returned
///   cancellable invalidates it when cancelled or released, as Combine's does.
/// - A run loop that nobody runs runs nothing: on Linux only the thread that owns a run loop runs
///   it, and the main run loop runs only while the main thread is in `RunLoop.main.run(…)` or a
///   UI event loop.
///
/// > Thread safety: Every method may be called from any thread: the run loop is only used through
/// > CoreFoundation calls that lock it (adding a timer or a block, invalidating a timer), as
/// > Combine's run loop scheduler uses it; it is never run or inspected from here.
extension RunLoop: Scheduler {
  /// Options for a run loop's scheduler; there are none, as in Combine.
  ///
  /// ```swift
  /// let options: RunLoop.SchedulerOptions? = nil
  /// let cancellable = values.receive(on: RunLoop.main, options: options).sink { print($0) }
  /// ```
  ///
  /// > Thread safety: A value type; use it from any thread.
  public struct SchedulerOptions: Sendable {}

  /// The current time: `Date()`.
  public var now: SchedulerTimeType { RunLoop.SchedulerTimeType(Date()) }

  /// Zero: a run loop takes any tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { 0 }

  /// Runs `action` on this run loop as soon as it runs: `scheduler.schedule(options:_:)`.
  ///
  /// ```swift
  /// RunLoop.main.schedule { print("on the main run loop") }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(
    options: SchedulerOptions? = nil,
    _ action: @escaping @Sendable () -> Void
  ) {
    scheduleSoon(in: .default, action)
  }

  /// Runs `action` on this run loop at `date`: `scheduler.schedule(after:tolerance:options:_:)`.
  ///
  /// ```swift
  /// RunLoop.main.schedule(after: RunLoop.main.now.advanced(by: 1)) { print("a second later") }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - date: When to run.
  ///   - tolerance: How late the run may be.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride = 0,
    options: SchedulerOptions? = nil,
    _ action: @escaping @Sendable () -> Void
  ) {
    scheduleOnce(at: date, tolerance: tolerance, in: .default, action)
  }

  /// Runs `action` on this run loop at `date` and then every `interval`, until the returned
  /// cancellable is cancelled or released.
  ///
  /// ```swift
  /// let ticking = RunLoop.main.schedule(after: RunLoop.main.now, interval: 1) { print("tick") }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - date: The first run.
  ///   - interval: The time between runs.
  ///   - tolerance: How late each run may be.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  /// - Returns: Stops the runs when cancelled or released.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride = 0,
    options: SchedulerOptions? = nil,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    scheduleRepeating(at: date, interval: interval, tolerance: tolerance, in: .default, action)
  }

  /// Runs `action` the next time the loop runs in `mode`, after the actions given before it.
  func scheduleSoon(in mode: Mode, _ action: @escaping @Sendable () -> Void) {
    // `perform` keeps the order actions were given in but does not wake a waiting loop; a timer
    // due now does.
    perform(inModes: [mode], block: action)
    addTimer(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, tolerance: 0, in: mode)
  }

  /// Runs `action` once, at `date`, in `mode`.
  func scheduleOnce(
    at date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    in mode: Mode,
    _ action: @escaping @Sendable () -> Void
  ) {
    addTimer(
      Timer(fire: date.date, interval: 0, repeats: false) { _ in action() },
      tolerance: tolerance,
      in: mode
    )
  }

  /// Runs `action` at `date` and every `interval` after it, in `mode`, until cancelled.
  func scheduleRepeating(
    at date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    in mode: Mode,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    let timer = Timer(fire: date.date, interval: interval.timeInterval, repeats: true) { _ in
      action()
    }
    addTimer(timer, tolerance: tolerance, in: mode)
    return AnyCancellable(TimerInvalidation(timer).invalidate)
  }

  /// Adds `timer` in `mode`, with `tolerance` when it is positive.
  private func addTimer(_ timer: Timer, tolerance: SchedulerTimeType.Stride, in mode: Mode) {
    if tolerance.timeInterval > 0 {
      timer.tolerance = tolerance.timeInterval
    }
    add(timer, forMode: mode)
  }

}

/// Invalidates a timer from whichever thread cancels it.
// Sendable: the timer is only invalidated, which CoreFoundation does under the timer's lock.
final class TimerInvalidation: @unchecked Sendable {
  private let timer: Timer

  init(_ timer: Timer) {
    self.timer = timer
  }

  func invalidate() {
    timer.invalidate()
  }
}

#endif
