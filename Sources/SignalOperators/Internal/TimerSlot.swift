package import StreamCore

/// A restartable timer of a time-based operator (`debounce`, `timeout`): each restart starts a
/// new generation, so a timer that fires after it was superseded is recognised and ignored.
///
/// ```
/// restart() --> generation += 1, the old timer is handed out to be cancelled after the lock
/// install(timer, for: generation) --> kept if generation is current, else handed back (stale)
/// ```
package struct TimerSlot {
  /// The generation of the latest restart.
  private(set) var generation: UInt64 = 0
  /// The running timer, once installed.
  package private(set) var timer: (any Cancellable)?

  /// An empty slot.
  package init() {}

  /// Starts a new generation; returns it and the superseded timer, to be cancelled after the lock.
  package mutating func restart() -> (generation: UInt64, superseded: (any Cancellable)?) {
    generation &+= 1
    return (generation, timer.take())
  }

  /// Keeps `timer`, started for `generation`; returns `false` when a restart superseded it, and
  /// the caller cancels it after the lock.
  package mutating func install(_ timer: any Cancellable, for generation: UInt64) -> Bool {
    guard generation == self.generation else { return false }
    precondition(self.timer == nil, "TimerSlot: a timer is already installed")
    self.timer = timer
    return true
  }

  /// Whether a timer started for `generation` is the current one.
  package func isCurrent(_ generation: UInt64) -> Bool { generation == self.generation }

  /// Hands out the timer, to be cancelled after the lock.
  package mutating func take() -> (any Cancellable)? { timer.take() }
}

extension Scheduler {
  /// Starts a timer that calls `fire` every `interval`, the first time `interval` from now; the
  /// caller keeps it in a ``TimerSlot`` and cancels it when it is superseded or done.
  package func startTimer(
    every interval: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ fire: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    schedule(
      after: now.advanced(by: interval),
      interval: interval,
      tolerance: minimumTolerance,
      options: options,
      fire
    )
  }
}
