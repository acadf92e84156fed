public import Dispatch
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
/// The scheduler is generic over the time and options of the scheduler it stands in for, so a
/// test can pass it where code expects a `DispatchQueue`'s scheduler:
///
/// ```swift
/// let queue = DispatchQueue.test  // TestSchedulerOf<DispatchQueue>
/// let model = SearchModel(scheduler: queue.eraseToAnyScheduler())
/// queue.advance(by: .milliseconds(300))
/// ```
///
/// `TestScheduler()` uses ``VirtualTime``, counted in ticks; one tick is one nanosecond, so
/// `.seconds(1)` is 1_000_000_000 ticks, and integer literals count ticks: `advance(by: 3)`
/// moves three nanoseconds. (A `DispatchQueue`'s stride literals count seconds, as in Combine.)
/// Options are accepted and ignored. Nothing ever sleeps; scheduled actions run inside ``advance(by:)``, ``advance(to:)`` and ``run(limit:)``,
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
///   when it is cancelled or deinitialised, so keep it. Once `cancel()` has returned, the action
///   is never started again; a run another thread's `advance` had already taken off the queue
///   may still finish.
/// - `tolerance` and options are ignored: virtual time is never late.
/// - The `async` forms ``advance(by:isolation:)``, ``advance(to:isolation:)`` and
///   ``run(limit:isolation:)`` yield to other tasks before each action and before they return, so that work an
///   action starts in a `Task` gets to run; use them from `async` tests.
///
/// > Thread safety: Every method may be called from any thread. Actions run on the thread that
/// > advances the scheduler. Advance it from one thread at a time: concurrent advances each run
/// > every action once, but they interleave and an action may then see a later ``now``.
// Sendable: all mutable state is guarded by `lock`; actions are called after it is released.
public final class TestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler,
  @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  private typealias Instant = SchedulerTimeType
  private typealias Interval = SchedulerTimeType.Stride

  /// One scheduled run of an action.
  private struct Entry {
    var due: Instant
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
    let interval: Interval
  }

  private enum RunStep {
    case run(@Sendable () -> Void)
    case idle
    case limitReached
  }

  private let lock = Lock()
  private var currentTime: Instant
  private var nextOrder: UInt64 = 0
  /// Sorted latest first, so that the next entry to run is `last`.
  private var queue: [Entry] = []
  /// The frame length and the marble publishers made on this scheduler.
  let marbleRegistry = MarbleRegistry()

  /// Creates a scheduler whose virtual clock starts at `now`, in another scheduler's time.
  ///
  /// ```swift
  /// let queue = TestSchedulerOf<DispatchQueue>(now: .init(.init(uptimeNanoseconds: 1)))
  /// ```
  ///
  /// `DispatchQueue.test` and `ImmediateScheduler.test` make the common ones; `TestScheduler()`
  /// makes one in ``VirtualTime``.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter now: The starting instant.
  public convenience init(now: SchedulerTimeType) {
    self.init(startingAt: now)
  }

  private init(startingAt now: SchedulerTimeType) {
    currentTime = now
  }

  /// The current virtual instant; it moves only when the scheduler is advanced or run.
  public var now: SchedulerTimeType {
    lock.withLock { currentTime }
  }

  /// Zero: virtual time is never late.
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

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
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    lock.withLock { enqueue(action, at: currentTime, repeating: nil) }
  }

  /// Schedules `action` for `date`; it runs when the scheduler is advanced to `date` or later.
  ///
  /// - Parameters:
  ///   - date: The instant at which the action runs. A past instant counts as the current one.
  ///   - tolerance: Ignored; virtual time is never late.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
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
  ///   - options: Ignored.
  ///   - action: The closure to run repeatedly.
  /// - Returns: An `AnyCancellable` that stops the repetition when it is cancelled
  ///   or deinitialised.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    let id = lock.withLock { () -> UInt64 in
      let id = nextOrder
      let repeating = Repeating(id: id, interval: interval > .zero ? interval : .nanoseconds(1))
      enqueue(action, at: date, repeating: repeating)
      return id
    }
    // Through an existential, so the closure captures no generic metadata.
    weak let target: (any RepeatingCancelling)? = self
    return AnyCancellable { target?.cancelRepeating(id) }
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
  public func advance(by stride: SchedulerTimeType.Stride = .zero) {
    advance(to: now.advanced(by: stride))
  }

  /// Moves virtual time forward to `instant`, running every action due by then.
  ///
  /// ```swift
  /// scheduler.advance(to: .init(1_000))
  /// scheduler.now  // VirtualTime(1_000)
  /// ```
  ///
  /// Actions run in order of due time, then of scheduling; ``now`` moves to each action's due
  /// time before it runs, and ends at `instant`. If `instant` is in the past, runs what is due
  /// now and leaves ``now`` unchanged.
  ///
  /// - Parameter instant: The instant to move to.
  public func advance(to instant: SchedulerTimeType) {
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
  /// scheduler.run()  // prints both; now is VirtualTime(9)
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
      switch nextRunStep(count: count, limit: limit) {
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

  /// Runs every action due before `instant` (not at it), then moves ``now`` to `instant` if
  /// that is later: the marble expectations act first within a frame this way.
  func advance(upTo instant: SchedulerTimeType) {
    while let action = nextAction(dueBefore: instant) {
      action()
    }
  }

  private func nextAction(dueBefore instant: Instant) -> (@Sendable () -> Void)? {
    lock.withLock {
      guard let next = queue.last, next.due < instant else {
        currentTime = Swift.max(currentTime, instant)
        return nil
      }
      return dequeueNext()
    }
  }

  /// Dequeues the next action for `run`, whatever its due time, unless `limit` actions have run.
  private func nextRunStep(count: Int, limit: Int) -> RunStep {
    lock.withLock { () -> RunStep in
      guard !queue.isEmpty else { return .idle }
      guard count < limit else { return .limitReached }
      return .run(dequeueNext())
    }
  }

  /// Dequeues the next action due by `instant`, or by ``now`` if that is later; when there is
  /// none, moves ``now`` to that instant and returns `nil`.
  private func nextAction(dueBy instant: Instant) -> (@Sendable () -> Void)? {
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
    at due: Instant,
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

  fileprivate func cancelRepeating(_ id: UInt64) {
    let removed = lock.withLock { () -> [Entry] in
      let removed = queue.filter { $0.repeating?.id == id }
      queue.removeAll { $0.repeating?.id == id }
      return removed
    }
    _ = removed  // the action and what it captures are released after the lock
  }
}

/// What a repeating action's cancellable calls back.
private protocol RepeatingCancelling: AnyObject, Sendable {
  func cancelRepeating(_ id: UInt64)
}

extension TestScheduler: RepeatingCancelling {}

extension TestScheduler where SchedulerTimeType == VirtualTime, SchedulerOptions == Never {
  /// Creates a scheduler in ``VirtualTime`` whose clock starts at `now`.
  ///
  /// ```swift
  /// let scheduler = TestScheduler()
  /// let later = TestScheduler(now: .init(1_000))
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter now: The starting instant; tick zero by default.
  public convenience init(now: VirtualTime = VirtualTime(0)) {
    self.init(startingAt: now)
  }
}

extension TestScheduler {
  /// Moves virtual time forward by `stride`, running what falls due, and lets other tasks run
  /// between the actions.
  ///
  /// ```swift
  /// @Test func debounced() async {
  ///   let scheduler = DispatchQueue.test
  ///   let model = SearchModel(scheduler: scheduler.eraseToAnyScheduler())
  ///   model.query = "sw"
  ///   await scheduler.advance(by: .milliseconds(300))
  ///   #expect(model.results == ["swift"])
  /// }
  /// ```
  ///
  /// It runs on the caller's actor (`isolation` defaults to it), so actions run there. Before
  /// each action and before returning it yields several times, so that tasks on that actor, such
  /// as a `Task` an action starts from a `@MainActor` test, or one waiting on the virtual clock,
  /// run before the next action and before this call returns. Tasks on other executors run in
  /// parallel and get no such promise.
  ///
  /// > Thread safety: As ``advance(by:)``: advance from one task or thread at a time.
  ///
  /// - Parameters:
  ///   - stride: How far to move time.
  ///   - isolation: The actor to run on; the caller's.
  public func advance(
    by stride: SchedulerTimeType.Stride = .zero,
    isolation: isolated (any Actor)? = #isolation
  ) async {
    await advance(to: now.advanced(by: stride), isolation: isolation)
  }

  /// Moves virtual time forward to `instant`, running what falls due, and lets other tasks run
  /// between the actions.
  ///
  /// > Thread safety: As ``advance(to:)``: advance from one task or thread
  /// > at a time.
  ///
  /// - Parameters:
  ///   - instant: The instant to move to.
  ///   - isolation: The actor to run on; the caller's.
  public func advance(
    to instant: SchedulerTimeType,
    isolation: isolated (any Actor)? = #isolation
  ) async {
    await Self.yieldToOtherTasks()
    while let action = nextAction(dueBy: instant) {
      action()
      await Self.yieldToOtherTasks()
    }
  }

  /// Runs every scheduled action, moving time to each one's due time, and lets other tasks run
  /// between the actions; stops after `limit` actions.
  ///
  /// > Thread safety: As ``run(limit:)``: run from one task or thread at a time.
  ///
  /// - Parameters:
  ///   - limit: The most actions to run in this call.
  ///   - isolation: The actor to run on; the caller's.
  /// - Returns: `true` if no actions are left, `false` if it stopped at `limit` with work left.
  @discardableResult
  public func run(
    limit: Int = 100_000,
    isolation: isolated (any Actor)? = #isolation
  ) async -> Bool {
    await Self.yieldToOtherTasks()
    var count = 0
    while true {
      switch nextRunStep(count: count, limit: limit) {
      case .run(let action):
        count += 1
        action()
        await Self.yieldToOtherTasks()
      case .idle:
        return true
      case .limitReached:
        return false
      }
    }
  }

  /// Yields often enough for a chain of tasks started one after the other to get going.
  private static func yieldToOtherTasks() async {
    for _ in 0..<20 {
      await Task.yield()
    }
  }
}

/// A ``TestScheduler`` with the time and options of `S`: `TestSchedulerOf<DispatchQueue>`.
public typealias TestSchedulerOf<S: Scheduler> = TestScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

extension DispatchQueue {
  /// A test scheduler that stands in for a dispatch queue: its clock starts at one nanosecond of
  /// uptime and moves only when advanced.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// let model = SearchModel(scheduler: scheduler.eraseToAnyScheduler())
  /// scheduler.advance(by: .seconds(1))
  /// ```
  ///
  /// Each use makes a new scheduler; keep the one you pass to the code under test. (Uptime zero
  /// would mean "now" to Dispatch, so the clock starts at one.)
  public static var test: TestSchedulerOf<DispatchQueue> {
    TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }
}

extension ImmediateScheduler {
  /// A test scheduler that stands in for the immediate scheduler; it moves only when advanced.
  ///
  /// The immediate scheduler's time has one instant, so `advance(by:)` runs what is scheduled
  /// and `now` never changes.
  public static var test: TestSchedulerOf<ImmediateScheduler> {
    TestScheduler(now: ImmediateScheduler.shared.now)
  }
}
