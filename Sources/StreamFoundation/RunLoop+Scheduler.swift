public import Foundation
public import StreamCore

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

/// A run loop's scheduler types, as Combine names them.
///
/// ```swift
/// let soon: RunLoop.SchedulerTimeType = RunLoop.main.now.advanced(by: .milliseconds(300))
/// let scheduler: AnySchedulerOf<RunLoop> = .main
/// ```
///
/// **Difference from Combine:** `RunLoop` itself is not a `Scheduler`. Foundation
/// declares `RunLoop` not `Sendable`, and a scheduler must be, because operators hand it to other
/// threads; declaring it `Sendable` anyway would make every `RunLoop` sendable in the programs
/// that import us. `RunLoop` adopts `SchedulerTypes` instead, so `AnySchedulerOf<RunLoop>`,
/// `RunLoop.test` and `RunLoop.immediate` work as in combine-schedulers, and its ``scheduler``
/// (a ``RunLoopScheduler``) is the scheduler. The operators most code passes a run loop to
/// (`receive(on:)`, `subscribe(on:)`, `debounce`, `throttle`, `delay`, `timeout`,
/// `measureInterval`) have overloads that take a `RunLoop`, so `.receive(on: RunLoop.main)`
/// compiles unchanged.
///
/// > Thread safety: The scheduler types are values; ``scheduler`` may be read from any thread.
extension RunLoop: SchedulerTypes {
  /// A run loop's time: a `Date`.
  public typealias SchedulerTimeType = DateSchedulerTime

  /// Options for a run loop's scheduler; there are none, as in Combine.
  ///
  /// ```swift
  /// let options: RunLoop.SchedulerOptions? = nil
  /// let cancellable = values.receive(on: RunLoop.main, options: options).sink { print($0) }
  /// ```
  ///
  /// > Thread safety: A value type; use it from any thread.
  public struct SchedulerOptions: Sendable {
    /// No options.
    public init() {}
  }

  /// This run loop as a scheduler, running actions in the `.default` mode.
  ///
  /// ```swift
  /// let cancellable = values.receive(on: RunLoop.main.scheduler).sink { print($0) }
  /// ```
  ///
  /// > Thread safety: May be read from any thread; the scheduler is `Sendable`.
  public var scheduler: RunLoopScheduler { RunLoopScheduler(self) }

  /// The current time: `Date()`.
  public var now: SchedulerTimeType { DateSchedulerTime(Date()) }

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
    scheduler.schedule(options: options, action)
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
    scheduler.schedule(after: date, tolerance: tolerance, options: options, action)
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
    scheduler.schedule(
      after: date,
      interval: interval,
      tolerance: tolerance,
      options: options,
      action
    )
  }

}

/// A run loop as a `Scheduler`: every action runs on the run loop's thread, the next
/// time the loop runs in the scheduler's mode.
///
/// ```swift
/// let scheduler = RunLoop.main.scheduler
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { print("a second later") }
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
/// > Thread safety: `Sendable`; every method may be called from any thread. Actions run on the
/// > run loop's thread.
// Sendable: the run loop is only used through CoreFoundation calls that lock the run loop
// (adding a timer or a block, invalidating a timer), as Combine's run loop scheduler uses it from
// any thread; it is never run or inspected from here. Apple's documentation asks for `invalidate`
// on the timer's thread; CoreFoundation's timers lock and allow it from any thread in practice.
public struct RunLoopScheduler: Scheduler, @unchecked Sendable {
  /// A run loop's time: a `Date`.
  public typealias SchedulerTimeType = RunLoop.SchedulerTimeType
  /// A run loop scheduler takes no options.
  public typealias SchedulerOptions = RunLoop.SchedulerOptions

  let runLoop: RunLoop
  /// The run loop mode the scheduler's timers are added in.
  public let mode: RunLoop.Mode

  /// A scheduler that runs actions on `runLoop` in `mode`.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - runLoop: The run loop to run actions on.
  ///   - mode: The mode the actions run in; `.default` as in Combine.
  public init(_ runLoop: RunLoop, mode: RunLoop.Mode = .default) {
    self.runLoop = runLoop
    self.mode = mode
  }

  /// The current time: `Date()`.
  public var now: SchedulerTimeType { DateSchedulerTime(Date()) }

  /// Zero: a run loop takes any tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { 0 }

  /// Runs `action` on the run loop as soon as it runs.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    // `perform` keeps the order actions were given in but does not wake a waiting loop; a timer
    // due now does.
    runLoop.perform(inModes: [mode], block: action)
    add(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, tolerance: 0)
  }

  /// Runs `action` on the run loop at `date`, or as soon as it runs after that.
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
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    add(Timer(fire: date.date, interval: 0, repeats: false) { _ in action() }, tolerance: tolerance)
  }

  /// Runs `action` on the run loop at `date` and then every `interval`, until the returned
  /// cancellable is cancelled or released.
  ///
  /// > Thread safety: May be called from any thread; cancel from any thread.
  ///
  /// - Parameters:
  ///   - date: The first run.
  ///   - interval: The time between runs; Foundation runs a timer with a zero or negative interval
  ///     every 0.1 ms.
  ///   - tolerance: How late each run may be.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  /// - Returns: Stops the runs when cancelled or released.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    let timer = Timer(fire: date.date, interval: interval.timeInterval, repeats: true) { _ in
      action()
    }
    add(timer, tolerance: tolerance)
    return AnyCancellable(TimerInvalidation(timer).invalidate)
  }

  private func add(_ timer: Timer, tolerance: SchedulerTimeType.Stride) {
    if tolerance.timeInterval > 0 {
      timer.tolerance = tolerance.timeInterval
    }
    runLoop.add(timer, forMode: mode)
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
