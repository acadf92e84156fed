import Dispatch
public import Foundation
public import StreamCore

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

/// Makes every operation queue a `Scheduler`: each action runs as an operation on the
/// queue.
///
/// ```swift
/// let queue = OperationQueue()
/// queue.maxConcurrentOperationCount = 1
/// let cancellable = values.receive(on: queue).sink { print($0) }
/// ```
///
/// - `schedule(options:_:)` adds a `BlockOperation` at once.
/// - `schedule(after:tolerance:options:_:)` adds it at `date`, on the wall clock (a `Date`), so
///   the operation counts towards the queue's operations only once it is due.
/// - `schedule(after:interval:tolerance:options:_:)` adds one operation at `date` and then every
///   `interval` (a zero or negative interval counts as one nanosecond), until the returned
///   cancellable is cancelled or released. `tolerance` is the timer's leeway.
/// - A queue with `maxConcurrentOperationCount == 1` runs the actions in the order they are
///   added; a concurrent queue may run them at the same time, as with Foundation.
///
/// > Thread safety: Every method may be called from any thread. Actions run where the queue runs
/// > its operations.
extension OperationQueue: Scheduler {

  /// Options for an operation queue's scheduler; there are none, as in Combine.
  ///
  /// ```swift
  /// OperationQueue.main.schedule(options: nil) { print("soon") }
  /// ```
  ///
  /// > Thread safety: A value type; use it from any thread.
  public struct SchedulerOptions: Sendable {}

  /// The current time: `Date()`.
  public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

  /// Zero: an operation queue takes any tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { 0 }

  /// Adds `action` to the queue as an operation.
  ///
  /// ```swift
  /// queue.schedule(options: nil) { print("on the queue") }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    addOperation(action)
  }

  /// Adds `action` to the queue as an operation at `date`.
  ///
  /// ```swift
  /// queue.schedule(after: queue.now.advanced(by: .seconds(1)), tolerance: 0, options: nil) {
  ///   print("a second later")
  /// }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - date: When to add the operation.
  ///   - tolerance: How late it may be added.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    OperationQueueTimers.queue.asyncAfter(wallDeadline: DispatchWallTime(date.date)) {
      [self] in
      addOperation(action)
    }
  }

  /// Adds `action` to the queue as an operation at `date` and then every `interval`, until the
  /// returned cancellable is cancelled or released.
  ///
  /// ```swift
  /// let ticking = queue.schedule(
  ///   after: queue.now, interval: .seconds(1), tolerance: 0, options: nil
  /// ) { print("tick") }
  /// ticking.cancel()
  /// ```
  ///
  /// > Thread safety: May be called from any thread; cancel from any thread.
  ///
  /// - Parameters:
  ///   - date: The first time.
  ///   - interval: The time between operations.
  ///   - tolerance: How late each may be added.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  /// - Returns: Stops the repetition when cancelled or released.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    let timer = DispatchSource.makeTimerSource(queue: OperationQueueTimers.queue)
    timer.schedule(
      wallDeadline: DispatchWallTime(date.date),
      repeating: .nanoseconds(max(1, interval.timeInterval.clampedNanoseconds)),
      leeway: .nanoseconds(tolerance.timeInterval.clampedNanoseconds)
    )
    timer.setEventHandler { [self] in addOperation(action) }
    timer.resume()
    let box = DispatchTimerBox(timer: timer)
    return AnyCancellable { box.timer.cancel() }
  }
}

// Sendable: a dispatch source may be cancelled from any thread, but corelibs Dispatch does not
// mark `DispatchSourceTimer` `Sendable`. The box is only used to call `cancel()`.
private struct DispatchTimerBox: @unchecked Sendable {
  let timer: any DispatchSourceTimer
}

/// The serial queue the operation queues' timers fire on, so operations due at the same time are
/// added in the order they were scheduled.
enum OperationQueueTimers {
  static let queue = DispatchQueue(label: "StreamFoundation.OperationQueue.timers")
}

extension DispatchWallTime {
  /// The wall time of `date`. The interval is read before the clock, so a delay between the two
  /// reads makes the deadline later, never earlier.
  init(_ date: Date) {
    let interval = date.timeIntervalSinceNow
    self = .now() + interval.dispatchInterval
  }
}

extension TimeInterval {
  /// The interval in whole nanoseconds: zero for a negative interval or NaN, `Int.max` for one
  /// too long for an `Int`.
  var clampedNanoseconds: Int {
    let nanoseconds = (self * 1_000_000_000).rounded()
    guard nanoseconds > 0 else { return 0 }
    guard nanoseconds < Double(Int.max) else { return .max }
    return Int(nanoseconds)
  }

  /// The interval for Dispatch arithmetic: `.never` when it does not fit.
  var dispatchInterval: DispatchTimeInterval {
    let nanoseconds = clampedNanoseconds
    return nanoseconds == .max ? .never : .nanoseconds(nanoseconds)
  }
}

#endif
