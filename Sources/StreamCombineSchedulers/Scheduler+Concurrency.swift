public import StreamCore

extension Scheduler {
  /// Suspends the current task for `duration` of the scheduler's time.
  ///
  /// ```swift
  /// func poll(scheduler: AnySchedulerOf<DispatchQueue>) async throws {
  ///   while true {
  ///     try await refresh()
  ///     try await scheduler.sleep(for: .seconds(30))
  ///   }
  /// }
  /// ```
  ///
  /// On a test scheduler the task wakes when the scheduler is advanced past the deadline, so a
  /// test runs the loop above without waiting. Cancelling the task wakes it at once with
  /// `CancellationError`.
  ///
  /// > Thread safety: May be called from any task.
  ///
  /// - Parameters:
  ///   - duration: How long to sleep, in the scheduler's time.
  ///   - tolerance: How late the wake-up may be.
  ///   - options: Passed to the scheduler.
  /// - Throws: `CancellationError` if the task is cancelled before or during the sleep.
  public func sleep(
    for duration: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) async throws {
    try await sleep(until: now.advanced(by: duration), tolerance: tolerance, options: options)
  }

  /// Suspends the current task until the scheduler's time reaches `deadline`.
  ///
  /// > Thread safety: May be called from any task.
  ///
  /// ```swift
  /// try await scheduler.sleep(until: scheduler.now.advanced(by: .seconds(1)))
  /// ```
  ///
  /// - Parameters:
  ///   - deadline: The instant to wake at.
  ///   - tolerance: How late the wake-up may be.
  ///   - options: Passed to the scheduler.
  /// - Throws: `CancellationError` if the task is cancelled before or during the sleep.
  public func sleep(
    until deadline: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) async throws {
    try Task.checkCancellation()
    let wake = SleepWake()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard wake.arm(continuation) else { return }
        schedule(after: deadline, tolerance: tolerance, options: options) { wake.fire(.none) }
      }
    } onCancel: {
      wake.fire(CancellationError())
    }
  }

  /// A stream of the scheduler's time, one element every `interval`, until the consuming task
  /// stops iterating or is cancelled.
  ///
  /// ```swift
  /// for await _ in scheduler.timer(interval: .seconds(1)) {
  ///   secondsLeft -= 1
  /// }
  /// ```
  ///
  /// The first element comes one `interval` after the call. Elements a slow consumer has not
  /// taken yet are buffered. Ending the iteration cancels the scheduler's repeating action.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - interval: The time between elements.
  ///   - tolerance: How late each element may be.
  ///   - options: Passed to the scheduler.
  /// - Returns: The stream of instants.
  public func timer(
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride = .zero,
    options: SchedulerOptions? = nil
  ) -> AsyncStream<SchedulerTimeType> {
    let (stream, continuation) = AsyncStream<SchedulerTimeType>.makeStream()
    let feed = TimerFeed(scheduler: self, continuation: continuation)
    let token = schedule(
      after: now.advanced(by: interval),
      interval: interval,
      tolerance: tolerance,
      options: options
    ) {
      feed.tick()
    }
    let timerToken = SendableByContract(token)
    continuation.onTermination = { _ in timerToken.wrapped.cancel() }
    return stream
  }

  /// How much of the scheduler's time passes while `work` runs.
  ///
  /// ```swift
  /// let elapsed = scheduler.measure { scheduler.advance(by: .seconds(2)) }  // 2 seconds
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter work: The work to time.
  /// - Returns: The distance from `now` before `work` to `now` after it.
  /// - Throws: What `work` throws.
  public func measure(_ work: () throws -> Void) rethrows -> SchedulerTimeType.Stride {
    let start = now
    try work()
    return start.distance(to: now)
  }
}

/// Feeds a timer's stream with the scheduler's time. A class, so that the repeating action
/// captures one reference and no generic metadata.
// Sendable: both stored properties are immutable; the scheduler is only asked for `now`, which a
// scheduler allows from any thread (the Scheduler contract), and a stream's continuation may be
// used from any thread.
private final class TimerFeed<S: Scheduler>: @unchecked Sendable {
  private let scheduler: S
  private let continuation: AsyncStream<S.SchedulerTimeType>.Continuation

  init(scheduler: S, continuation: AsyncStream<S.SchedulerTimeType>.Continuation) {
    self.scheduler = scheduler
    self.continuation = continuation
  }

  func tick() {
    continuation.yield(scheduler.now)
  }
}

/// The one wake-up of a `sleep`: whichever of the scheduled action and the task's cancellation
/// comes first resumes the continuation; the other does nothing.
private final class SleepWake: Sendable {
  private enum Phase {
    case waiting
    case armed(CheckedContinuation<Void, any Error>)
    case done
  }

  private let phase = LockedState(Phase.waiting)

  /// Stores the continuation; `false` if the sleep was already cancelled, which resumes it.
  func arm(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
    let cancelled = phase.withLock { phase -> Bool in
      guard case .waiting = phase else { return true }
      phase = .armed(continuation)
      return false
    }
    if cancelled {
      continuation.resume(throwing: CancellationError())
    }
    return !cancelled
  }

  /// Resumes the continuation once: normally when `error` is `nil`, with `error` otherwise.
  func fire(_ error: (any Error)?) {
    let continuation = phase.withLock { phase -> CheckedContinuation<Void, any Error>? in
      switch phase {
      case .armed(let continuation):
        phase = .done
        return continuation
      case .waiting:
        phase = .done
        return nil
      case .done:
        return nil
      }
    }
    guard let continuation else { return }
    if let error {
      continuation.resume(throwing: error)
    } else {
      continuation.resume()
    }
  }
}
