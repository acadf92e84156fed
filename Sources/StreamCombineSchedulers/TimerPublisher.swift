public import StreamCore

extension Scheduler {
  /// A connectable publisher of this scheduler's time, every `interval`, once connected.
  ///
  /// ```swift
  /// let cancellable = scheduler.timerPublisher(every: .seconds(1))
  ///   .autoconnect()
  ///   .sink { now in print("tick at", now) }
  /// ```
  ///
  /// The scheduler-agnostic form of Foundation's `Timer.publish(every:on:in:)`: on a test
  /// scheduler the timer ticks as the test advances time.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - interval: The time between ticks.
  ///   - tolerance: How late each tick may be; `nil` for the scheduler's minimum tolerance.
  ///   - options: Passed to the scheduler.
  /// - Returns: The timer publisher; it ticks from `connect()` on.
  public func timerPublisher(
    every interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride? = nil,
    options: SchedulerOptions? = nil
  ) -> Publishers.Timer<Self> {
    Publishers.Timer(every: interval, tolerance: tolerance, scheduler: self, options: options)
  }
}

extension Publishers {
  /// A connectable publisher that sends its scheduler's time every `interval` while connected.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// let timer = Publishers.Timer(every: .seconds(1), scheduler: scheduler)
  /// let cancellable = timer.autoconnect().sink { print($0) }
  /// scheduler.advance(by: .seconds(3))  // three ticks
  /// ```
  ///
  /// - Subscribers share one timer and see nothing until ``connect()``. The first tick comes one
  ///   `interval` after the connection, carrying the scheduler's `now`.
  /// - A subscriber with no demand when a tick comes misses that tick, as with Foundation's timer.
  /// - Cancelling what ``connect()`` returned stops the ticks; a later ``connect()`` starts them
  ///   again. Connecting while connected returns the same connection. As with Combine's
  ///   connections, releasing it without cancelling leaves the timer running.
  /// - The timer never completes.
  ///
  /// > Thread safety: `Sendable`; subscribe, connect and cancel from any thread. Ticks are sent
  /// > where the scheduler runs its actions.
  // Sendable: the configuration is immutable, and the scheduler is only asked to schedule, which
  // a scheduler allows from any thread (the Scheduler contract, as in Combine, whether or not its
  // type says `Sendable`); the timer behind it guards its connection with a lock.
  public final class Timer<S: Scheduler>: ConnectablePublisher, @unchecked Sendable {
    /// The scheduler's time at each tick.
    public typealias Output = S.SchedulerTimeType
    /// A timer never fails.
    public typealias Failure = Never

    /// The time between ticks.
    public let interval: S.SchedulerTimeType.Stride
    /// How late each tick may be; `nil` for the scheduler's minimum tolerance.
    public let tolerance: S.SchedulerTimeType.Stride?
    /// The scheduler the timer runs on.
    public let scheduler: S
    /// Passed to the scheduler.
    public let options: S.SchedulerOptions?

    private let timer: ScheduledTimer<S>

    /// Creates a timer on `scheduler`; it ticks once connected.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Parameters:
    ///   - interval: The time between ticks.
    ///   - tolerance: How late each tick may be; `nil` for the scheduler's minimum tolerance.
    ///   - scheduler: The scheduler to run on.
    ///   - options: Passed to the scheduler.
    public init(
      every interval: S.SchedulerTimeType.Stride,
      tolerance: S.SchedulerTimeType.Stride? = nil,
      scheduler: S,
      options: S.SchedulerOptions? = nil
    ) {
      self.interval = interval
      self.tolerance = tolerance
      self.scheduler = scheduler
      self.options = options
      timer = ScheduledTimer(
        every: interval,
        tolerance: tolerance,
        scheduler: scheduler,
        options: options
      )
    }

    /// Attaches `subscriber`; it receives the ticks sent while it has demand.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Never {
      timer.receive(subscriber: subscriber)
    }

    /// Starts the ticks, unless they run already.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Returns: A cancellable that stops the ticks.
    public func connect() -> any Cancellable {
      timer.connect()
    }
  }
}
