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
/// As Combine's (OpenCombine's `OperationQueueSchedulerTests` record each call on the queue):
/// - `schedule(options:_:)` adds a `BlockOperation` at once.
/// - `schedule(after:tolerance:options:_:)` adds an operation at once that becomes ready at
///   `date`, on the wall clock (a `Date`), so `waitUntilAllOperationsAreFinished()` waits for it.
///   The operation runs its action once, and is a `Cancellable`.
/// - `schedule(after:interval:tolerance:options:_:)` does the same for the first run; each run
///   adds the next operation, ready `interval` later (a zero or negative interval counts as one
///   nanosecond), until the returned cancellable is cancelled or released. `tolerance` is not
///   used.
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
    addOperation(BlockOperation(block: action))
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
    let operation = DelayedOperation(action: action, next: nil)
    addOperation(operation)
    operation.becomeReady(at: DispatchWallTime(date.date))
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
    let series = DelayedOperation.Series(
      queue: self,
      interval: .nanoseconds(max(1, interval.timeInterval.clampedNanoseconds))
    )
    let operation = DelayedOperation(action: action, next: series)
    _ = series.start(operation)
    addOperation(operation)
    operation.becomeReady(at: DispatchWallTime(date.date))
    return AnyCancellable { series.cancel() }
  }
}

/// An operation added at once that becomes ready when its time comes: Combine's delayed action
/// on an operation queue. It runs its action once; one of a repeating series adds the next
/// operation of the series when it runs.
// Sendable: `state` is locked; `Operation` is thread-safe.
final class DelayedOperation: Operation, Cancellable, @unchecked Sendable {
  /// The operations of one `schedule(after:interval:…)`, for its cancellable.
  // Sendable: its fields are locked or constant.
  final class Series: Cancellable, @unchecked Sendable {
    let queue: OperationQueue
    let interval: DispatchTimeInterval
    /// The operation waiting for its time, and whether the series is cancelled.
    private typealias Waiting = (current: DelayedOperation?, cancelled: Bool)
    private let state = LockedState<Waiting>((nil, false))

    init(queue: OperationQueue, interval: DispatchTimeInterval) {
      self.queue = queue
      self.interval = interval
    }

    /// Makes `operation` the one waiting; `false` once the series is cancelled.
    func start(_ operation: DelayedOperation) -> Bool {
      let (started, previous) = state.withLock {
        (series: inout Waiting) -> (Bool, DelayedOperation?) in
        guard !series.cancelled else { return (false, nil) }
        defer { series.current = operation }
        return (true, series.current)
      }
      _ = previous  // released after the lock
      return started
    }

    func cancel() {
      let waiting = state.withLock { (series: inout Waiting) -> DelayedOperation? in
        series.cancelled = true
        return series.current.take()
      }
      waiting?.cancel()
    }
  }

  private struct State {
    var action: (@Sendable () -> Void)?
    var ready = false
  }

  private let state: LockedState<State>
  private let next: Series?

  init(action: @escaping @Sendable () -> Void, next: Series?) {
    state = LockedState(State(action: action))
    self.next = next
    super.init()
  }

  override var isReady: Bool {
    super.isReady && state.withLock { $0.ready }
  }

  /// Makes the operation ready at `deadline`, so the queue runs it.
  func becomeReady(at deadline: DispatchWallTime) {
    OperationQueueTimers.queue.asyncAfter(wallDeadline: deadline) { [weak self] in
      self?.markReady()
    }
  }

  private func markReady() {
    willChangeValue(for: \.isReady)
    state.withLock { $0.ready = true }
    didChangeValue(for: \.isReady)
  }

  override func main() {
    guard let action = state.withLock({ $0.action.take() }) else { return }
    action()
    guard let series = next else { return }
    let following = DelayedOperation(action: action, next: series)
    guard series.start(following) else { return }
    series.queue.addOperation(following)
    following.becomeReady(at: .now() + series.interval)
  }

  /// Cancels the operation; it leaves the queue at once, without running its action.
  override func cancel() {
    let action = state.withLock { $0.action.take() }
    _ = action  // released after the lock
    super.cancel()
    markReady()
  }
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
