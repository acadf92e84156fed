public import Foundation
import SignalOperators
public import StreamCore

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

extension Timer {
  /// A connectable publisher of the date, every `interval` seconds, on `runLoop` in `mode`.
  ///
  /// ```swift
  /// let cancellable = Timer.publish(every: 1, on: .main, in: .common)
  ///   .autoconnect()
  ///   .sink { date in print("tick at", date) }
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - interval: The seconds between ticks.
  ///   - tolerance: Ignored, as in Combine, whose `publish` drops it: the publisher's
  ///     ``TimerPublisher/tolerance`` is `nil`. Pass a tolerance to
  ///     ``TimerPublisher/init(interval:tolerance:runLoop:mode:options:)`` instead.
  ///   - runLoop: The run loop the timer runs on; ticks arrive on its thread.
  ///   - mode: The run loop mode the timer runs in.
  ///   - options: Ignored; a run loop takes no options.
  /// - Returns: A timer publisher that ticks once connected.
  public static func publish(
    every interval: TimeInterval,
    tolerance: TimeInterval? = nil,
    on runLoop: RunLoop,
    in mode: RunLoop.Mode,
    options: RunLoop.SchedulerOptions? = nil
  ) -> TimerPublisher {
    // As Combine's, which leaves `tolerance` out (OpenCombine's
    // `TimerPublisherTests.testPublishMethod`, run against Combine).
    TimerPublisher(
      interval: interval,
      tolerance: nil,
      runLoop: runLoop,
      mode: mode,
      options: options
    )
  }

  /// A connectable publisher of the date, every ``interval`` seconds, while connected: Foundation's
  /// `Timer.TimerPublisher`.
  ///
  /// ```swift
  /// let timer = Timer.TimerPublisher(interval: 0.5, runLoop: .main, mode: .default)
  /// let cancellable = timer.sink { print($0) }
  /// let connection = timer.connect()  // ticks from now on
  /// ```
  ///
  /// - Subscribers share one Foundation `Timer` and see nothing until ``connect()``; the first tick
  ///   comes one interval after it, carrying `Date()` at the tick.
  /// - A subscriber with no demand when a tick comes misses it.
  /// - Cancelling the connection invalidates the timer; a later ``connect()`` starts a new one.
  ///   Connecting while connected returns the same connection. The timer never completes.
  /// - The run loop must run for ticks to come: on Linux only the thread that owns a run loop
  ///   runs it.
  ///
  /// The ticks are scheduled on the run loop in ``mode``, by the same connectable timer that
  /// combine-schedulers' `Publishers.Timer` uses.
  ///
  /// > Thread safety: Subscribe, connect and cancel from any thread; ticks arrive on the run
  /// > loop's thread. Not `Sendable`, as in Foundation: it hands out its `runLoop`, which is not.
  public final class TimerPublisher: ConnectablePublisher {
    /// The date of each tick.
    public typealias Output = Date
    /// A timer never fails.
    public typealias Failure = Never

    /// The seconds between ticks.
    public let interval: TimeInterval
    /// How late each tick may be; `nil` for none.
    public let tolerance: TimeInterval?
    /// The run loop the timer runs on.
    public let runLoop: RunLoop
    /// The run loop mode the timer runs in.
    public let mode: RunLoop.Mode
    /// Ignored; a run loop takes no options.
    public let options: RunLoop.SchedulerOptions?

    private let ticks: ScheduledTimer<RunLoopInMode>

    /// Creates a timer publisher; it ticks once connected.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Parameters:
    ///   - interval: The seconds between ticks.
    ///   - tolerance: How late each tick may be; `nil` for none.
    ///   - runLoop: The run loop the timer runs on.
    ///   - mode: The run loop mode the timer runs in.
    ///   - options: Ignored; a run loop takes no options.
    public init(
      interval: TimeInterval,
      tolerance: TimeInterval? = nil,
      runLoop: RunLoop,
      mode: RunLoop.Mode,
      options: RunLoop.SchedulerOptions? = nil
    ) {
      self.interval = interval
      self.tolerance = tolerance
      self.runLoop = runLoop
      self.mode = mode
      self.options = options
      ticks = ScheduledTimer(
        every: .init(interval),
        tolerance: tolerance.map { .init($0) },
        scheduler: RunLoopInMode(runLoop: runLoop, mode: mode),
        options: options
      )
    }

    /// Starts the timer, or returns the running connection.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Returns: Invalidates the timer when cancelled.
    public func connect() -> any Cancellable {
      ticks.connect()
    }

    /// Attaches `subscriber`; it gets the ticks after ``connect()``.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
      ticks.subscribe(
        TimerSubscription(downstream: subscriber, interval: interval, tolerance: tolerance)
      )
    }
  }
}

/// A subscriber's end of a ``Foundation/Timer/TimerPublisher``: it takes the shared ticks and
/// hands on their dates, and describes and mirrors itself as Foundation's timer subscription
/// does (`Timer`; the `downstream`, the `interval` and the `tolerance`, which read `nil` once it
/// ended).
///
/// ```
/// awaiting --receive(subscription:)--> active --cancel() / completion--> terminal
/// ```
// Sendable: `state` is guarded by `lock`; the ticks' subscription and the downstream are called
// after it.
private final class TimerSubscription<Downstream: Subscriber>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
where Downstream.Input == Date, Downstream.Failure == Never {
  typealias Input = RunLoop.SchedulerTimeType
  typealias Failure = Never

  private enum State {
    case awaiting(Downstream)
    case active(any Subscription, Downstream)
    case terminal
  }

  private let lock = Lock()
  private var state: State
  private let interval: TimeInterval
  private let tolerance: TimeInterval?

  init(downstream: Downstream, interval: TimeInterval, tolerance: TimeInterval?) {
    state = .awaiting(downstream)
    self.interval = interval
    self.tolerance = tolerance
  }

  var description: String { "Timer" }

  var customMirror: Mirror {
    let downstream = lock.withLock { () -> Downstream? in
      switch state {
      case .awaiting(let downstream), .active(_, let downstream): downstream
      case .terminal: nil
      }
    }
    let interval: TimeInterval? = downstream == nil ? nil : self.interval
    let tolerance: TimeInterval? = downstream == nil ? nil : self.tolerance
    return Mirror(
      self,
      children: [
        "downstream": downstream as Any, "interval": interval as Any, "tolerance": tolerance as Any,
      ]
    )
  }

  var playgroundDescription: Any { description }

  func receive(subscription: any Subscription) {
    let downstream = lock.withLock { () -> Downstream? in
      guard case .awaiting(let downstream) = state else { return nil }
      state = .active(subscription, downstream)
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  func receive(_ input: RunLoop.SchedulerTimeType) -> Subscribers.Demand {
    let downstream = lock.withLock { () -> Downstream? in
      guard case .active(_, let downstream) = state else { return nil }
      return downstream
    }
    return downstream?.receive(input.date) ?? .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    let downstream = lock.withLock { () -> Downstream? in
      guard case .active(_, let downstream) = state else { return nil }
      state = .terminal
      return downstream
    }
    downstream?.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    let upstream = lock.withLock { () -> (any Subscription)? in
      guard case .active(let upstream, _) = state else { return nil }
      return upstream
    }
    upstream?.request(demand)
  }

  func cancel() {
    let released = lock.withLock { () -> State in
      defer { state = .terminal }
      return state
    }
    if case .active(let upstream, _) = released { upstream.cancel() }
  }
}

/// A run loop that schedules in one mode: a timer publisher's scheduler, as `Timer.publish`
/// takes a mode where `RunLoop`'s own scheduling uses the default one.
// Sendable: the run loop is only used through the calls `RunLoop`'s scheduling makes, which
// CoreFoundation allows from any thread.
struct RunLoopInMode: Scheduler, @unchecked Sendable {
  let runLoop: RunLoop
  let mode: RunLoop.Mode

  var now: RunLoop.SchedulerTimeType { runLoop.now }

  var minimumTolerance: RunLoop.SchedulerTimeType.Stride { runLoop.minimumTolerance }

  func schedule(options: RunLoop.SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    runLoop.scheduleSoon(in: mode, action)
  }

  func schedule(
    after date: RunLoop.SchedulerTimeType,
    tolerance: RunLoop.SchedulerTimeType.Stride,
    options: RunLoop.SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    runLoop.scheduleOnce(at: date, tolerance: tolerance, in: mode, action)
  }

  func schedule(
    after date: RunLoop.SchedulerTimeType,
    interval: RunLoop.SchedulerTimeType.Stride,
    tolerance: RunLoop.SchedulerTimeType.Stride,
    options: RunLoop.SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    runLoop.scheduleRepeating(
      at: date,
      interval: interval,
      tolerance: tolerance,
      in: mode,
      action
    )
  }
}

#endif
