public import StreamCore

/// A scheduler with virtual time, which moves only when a test advances it.
///
/// ```swift
/// let scheduler = TestScheduler()
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { print("one second") }
/// scheduler.advance(by: .milliseconds(999))  // prints nothing
/// scheduler.advance(by: .milliseconds(1))    // prints "one second"
/// ```
///
/// Time is counted in ticks; one tick is one nanosecond, so `.seconds(1)` is 1_000_000_000 ticks,
/// and integer literals count ticks: `advance(by: 3)` moves three nanoseconds. Nothing ever
/// sleeps; scheduled actions run inside ``advance(by:)``, ``advance(to:)`` and ``run(limit:)``,
/// on the thread that calls them.
///
/// - Actions due at the same instant run in the order they were scheduled. An action scheduled
///   with ``schedule(options:_:)``, or for an instant that is not in the future, is due at
///   ``now`` and runs on the next `advance` (`advance()` with no argument runs just those) or
///   `run`; scheduling never runs an action by itself.
/// - Before an action runs, ``now`` moves to its due time, so the action sees the instant it was
///   scheduled for. ``now`` never goes backwards: an action that was due in the past runs at the
///   current ``now``, and advancing to a past instant runs what is due but leaves ``now`` alone.
/// - Actions run after the scheduler's lock is released, so they may schedule more work. Work an
///   action schedules for an instant the current `advance` reaches, including the current
///   instant, runs in that same `advance`, after the work that was already due then.
/// - A repeating action first runs at `date`, then every `interval` after it; an `interval` of
///   less than one tick counts as one tick. The returned `AnyCancellable` stops it
///   when it is cancelled or deinitialised, so keep it. Once `cancel()`
///   has returned, the action never runs again.
/// - `tolerance` is ignored: virtual time is never late. The scheduler takes no options.
///
/// > Thread safety: Every method may be called from any thread. Actions run on the thread that
/// > advances the scheduler. Advance it from one thread at a time: concurrent advances each run
/// > every action once, but they interleave and an action may then see a later ``now``.
// Sendable: all mutable state is guarded by `lock`; actions are called after it is released.
public final class TestScheduler: Scheduler, @unchecked Sendable {
  /// The scheduler's time type: a count of ticks.
  public typealias SchedulerTimeType = Time

  /// The test scheduler takes no options.
  public typealias SchedulerOptions = Never

  /// One scheduled run of an action.
  private struct Entry {
    var due: Time
    /// Breaks ties between entries due at the same instant: lower runs first.
    var order: UInt64
    let action: @Sendable () -> Void
    let repeating: Repeating?

    func precedes(_ other: Entry) -> Bool {
      (due, order) < (other.due, other.order)
    }
  }

  private struct Repeating {
    let id: UInt64
    let interval: Stride
  }

  private enum RunStep {
    case run(@Sendable () -> Void)
    case idle
    case limitReached
  }

  private let lock = Lock()
  private var currentTime: Time
  private var nextOrder: UInt64 = 0
  /// Sorted latest first, so that the next entry to run is `last`.
  private var queue: [Entry] = []

  /// Creates a scheduler whose virtual clock starts at `now`.
  ///
  /// ```swift
  /// let scheduler = TestScheduler(now: .init(1_000))
  /// ```
  ///
  /// - Parameter now: The starting instant.
  public init(now: Time = Time(0)) {
    currentTime = now
  }

  /// The current virtual instant; it moves only when the scheduler is advanced or run.
  public var now: Time {
    lock.withLock { currentTime }
  }

  /// Zero: virtual time is never late.
  public var minimumTolerance: Stride { 0 }

  /// The number of scheduled runs that have not happened yet; a repeating action counts once.
  ///
  /// ```swift
  /// scheduler.schedule { }
  /// scheduler.pendingActionCount  // 1
  /// scheduler.advance()
  /// scheduler.pendingActionCount  // 0
  /// ```
  public var pendingActionCount: Int {
    lock.withLock { queue.count }
  }

  /// Schedules `action` for the current instant; it runs on the next `advance` or `run`.
  ///
  /// - Parameters:
  ///   - options: Always `nil`; the scheduler takes no options.
  ///   - action: The closure to run.
  public func schedule(options: Never?, _ action: @escaping @Sendable () -> Void) {
    lock.withLock { enqueue(action, at: currentTime, repeating: nil) }
  }

  /// Schedules `action` for `date`; it runs when the scheduler is advanced to `date` or later.
  ///
  /// - Parameters:
  ///   - date: The instant at which the action runs. A past instant counts as the current one.
  ///   - tolerance: Ignored; virtual time is never late.
  ///   - options: Always `nil`; the scheduler takes no options.
  ///   - action: The closure to run.
  public func schedule(
    after date: Time,
    tolerance: Stride,
    options: Never?,
    _ action: @escaping @Sendable () -> Void
  ) {
    lock.withLock { enqueue(action, at: date, repeating: nil) }
  }

  /// Schedules `action` for `date` and then every `interval`, until the returned cancellable is
  /// cancelled or deinitialised.
  ///
  /// - Parameters:
  ///   - date: The instant of the first run.
  ///   - interval: The time between runs; less than one tick counts as one tick.
  ///   - tolerance: Ignored; virtual time is never late.
  ///   - options: Always `nil`; the scheduler takes no options.
  ///   - action: The closure to run repeatedly.
  /// - Returns: An `AnyCancellable` that stops the repetition when it is cancelled
  ///   or deinitialised.
  public func schedule(
    after date: Time,
    interval: Stride,
    tolerance: Stride,
    options: Never?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    let id = lock.withLock { () -> UInt64 in
      let id = nextOrder
      let repeating = Repeating(id: id, interval: Swift.max(interval, 1))
      enqueue(action, at: date, repeating: repeating)
      return id
    }
    return AnyCancellable { [weak self] in
      self?.cancelRepeating(id)
    }
  }

  /// Moves virtual time forward by `stride`, running every action that falls due on the way.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: 10)) { print("10 ticks") }
  /// scheduler.advance(by: 10)  // prints "10 ticks"
  /// ```
  ///
  /// With no argument, runs what is due at the current instant without moving time. A negative
  /// stride does the same: time never goes backwards.
  ///
  /// - Parameter stride: How far to move time.
  public func advance(by stride: Stride = 0) {
    advance(to: now.advanced(by: stride))
  }

  /// Moves virtual time forward to `instant`, running every action due by then.
  ///
  /// ```swift
  /// scheduler.advance(to: .init(1_000))
  /// scheduler.now  // Time(1_000)
  /// ```
  ///
  /// Actions run in order of due time, then of scheduling; ``now`` moves to each action's due
  /// time before it runs, and ends at `instant`. If `instant` is in the past, runs what is due
  /// now and leaves ``now`` unchanged.
  ///
  /// - Parameter instant: The instant to move to.
  public func advance(to instant: Time) {
    while let action = nextAction(dueBy: instant) {
      action()
    }
  }

  /// Runs scheduled actions, moving time to each one's due time, until none are left or `limit`
  /// actions have run.
  ///
  /// ```swift
  /// scheduler.schedule(after: .init(5)) { print("at 5") }
  /// scheduler.schedule(after: .init(9)) { print("at 9") }
  /// scheduler.run()  // prints both; now is Time(9)
  /// ```
  ///
  /// A repeating action that is still scheduled never lets the queue empty, so `run` stops
  /// after `limit` actions instead of running forever, and returns `false`. Cancel repeating
  /// actions first, or use ``advance(by:)``, to run them a known number of times.
  ///
  /// - Parameter limit: The most actions to run in this call.
  /// - Returns: `true` if no actions are left, `false` if it stopped at `limit` with work left.
  @discardableResult
  public func run(limit: Int = 100_000) -> Bool {
    var count = 0
    while true {
      let step = lock.withLock { () -> RunStep in
        guard !queue.isEmpty else { return .idle }
        guard count < limit else { return .limitReached }
        return .run(dequeueNext())
      }
      switch step {
      case .run(let action):
        count += 1
        action()
      case .idle:
        return true
      case .limitReached:
        return false
      }
    }
  }

  /// Dequeues the next action due by `instant`, or by ``now`` if that is later; when there is
  /// none, moves ``now`` to that instant and returns `nil`.
  private func nextAction(dueBy instant: Time) -> (@Sendable () -> Void)? {
    lock.withLock {
      let limit = Swift.max(currentTime, instant)
      guard let next = queue.last, next.due <= limit else {
        currentTime = limit
        return nil
      }
      return dequeueNext()
    }
  }

  /// Inserts an entry, keeping `queue` sorted latest first. Call with the lock held.
  private func enqueue(
    _ action: @escaping @Sendable () -> Void,
    at due: Time,
    repeating: Repeating?
  ) {
    insert(Entry(due: due, order: 0, action: action, repeating: repeating))
  }

  /// Gives `entry` the next order number, then inserts it. Call with the lock held.
  private func insert(_ entry: Entry) {
    var entry = entry
    entry.order = nextOrder
    nextOrder += 1
    var low = 0
    var high = queue.count
    while low < high {
      let middle = (low + high) / 2
      if queue[middle].precedes(entry) {
        high = middle
      } else {
        low = middle + 1
      }
    }
    queue.insert(entry, at: low)
  }

  /// Removes the next entry, moves time to it and schedules its next repetition. Call with the
  /// lock held.
  private func dequeueNext() -> @Sendable () -> Void {
    var entry = queue.removeLast()
    currentTime = Swift.max(currentTime, entry.due)
    if let repeating = entry.repeating {
      let next = entry.due.advanced(by: repeating.interval)
      if next > entry.due {  // a saturated time cannot repeat
        entry.due = next
        insert(entry)
      }
    }
    return entry.action
  }

  private func cancelRepeating(_ id: UInt64) {
    let removed = lock.withLock { () -> [Entry] in
      let removed = queue.filter { $0.repeating?.id == id }
      queue.removeAll { $0.repeating?.id == id }
      return removed
    }
    _ = removed  // the action and what it captures are released after the lock
  }
}
