public import Dispatch
import PropertyWrappers
import SignalOperators
import StreamCombineSchedulers
public import StreamCore

/// A message source that fires `Void` after a delay, once or repeatedly, timed by a scheduler
/// (SwiftySignals' `TimerSignal`).
///
/// ```swift
/// let timer = TimerSignal(repeats: true)  // times on the main queue, as SwiftySignals did
/// let cancellable = timer.fired.sink { print("tick") }
/// timer.fire(after: .seconds(10))
/// ```
///
/// ``fire(after:)-(Duration)`` (re)starts the timer: an earlier schedule is dropped. With `repeats` the
/// timer fires every `delay` until ``disable()``; otherwise once. ``fired`` does not replay: a
/// subscriber gets only the ticks after it subscribed. Ticks are delivered on the scheduler:
/// the main queue by default, where SwiftySignals fired its timers (on the main run loop), so
/// the closures of `then`, `filter` and `map` after ``fired`` run on the main queue as there;
/// `dispatch(to:)`, `dispatch(qos:)` and `noDispatch()` on ``EndPoint`` move them.
/// Releasing the timer stops it and finishes every subscriber; the scheduler holds it only
/// weakly.
///
/// `TimerSignal` is not generic, as in SwiftySignals (`let timer: TimerSignal`): it times on any
/// scheduler in a dispatch queue's time, such as `DispatchQueue`, `UIScheduler`,
/// `AnySchedulerOf<DispatchQueue>`, or `DispatchQueue.test` in tests.
///
/// > Thread safety: `fire(after:)` and `disable()` are safe from any thread. A tick already
/// > running when `disable()` is called may still be delivered.
// Sendable: the mutable state is behind `state`'s lock; the rest is immutable.
public final class TimerSignal: @unchecked Sendable {
  private typealias Time = DispatchQueue.SchedulerTimeType

  /// Whether the timer fires repeatedly.
  public let repeats: Bool
  /// The tolerance the scheduler is given.
  public let tolerance: DispatchQueue.SchedulerTimeType.Stride
  /// The scheduler that times and delivers the ticks, with its options dropped.
  private let scheduler: AnyScheduler<Time, Never>

  private let subject = PassthroughSubject<Void, Never>()
  private let state = LockedState(State())

  private struct State {
    /// Bumped by each `fire(after:)` and `disable()`; a tick from an older schedule is ignored.
    var generation = 0
    var repeating: (any Cancellable)?
  }

  /// Creates a timer on `scheduler`; it does nothing until ``fire(after:)-(Duration)``.
  ///
  /// ```swift
  /// let timer = TimerSignal(repeats: false, scheduler: DispatchQueue.test)
  /// ```
  ///
  /// > Thread safety: The new timer may be used from any thread.
  ///
  /// - Parameters:
  ///   - repeats: Whether it fires repeatedly or once.
  ///   - tolerance: How late the scheduler may run a tick.
  ///   - scheduler: The scheduler that times and delivers the ticks.
  public init<S: Scheduler>(repeats: Bool, tolerance: Duration = .zero, scheduler: S)
  where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    self.repeats = repeats
    self.tolerance = .swiftyStride(tolerance)
    // A scheduler may be called from any thread (the Scheduler contract), whether or not its type
    // says `Sendable`.
    let box = SendableByContract(scheduler)
    self.scheduler = AnyScheduler(
      minimumTolerance: { box.wrapped.minimumTolerance },
      now: { box.wrapped.now },
      scheduleImmediately: { _, action in box.wrapped.schedule(options: nil, action) },
      delayed: { date, tolerance, _, action in
        box.wrapped.schedule(after: date, tolerance: tolerance, options: nil, action)
      },
      interval: { date, interval, tolerance, _, action in
        box.wrapped.schedule(
          after: date,
          interval: interval,
          tolerance: tolerance,
          options: nil,
          action
        )
      }
    )
  }

  deinit {
    state.withLock { $0.repeating }?.cancel()
    subject.send(completion: .finished)
  }

  /// The publisher of ticks (SwiftySignals' endpoint `fired`), delivered where the scheduler
  /// runs them.
  ///
  /// ```swift
  /// let cancellable = timer.fired.sink { refresh() }
  /// ```
  ///
  /// > Thread safety: Safe to read and subscribe to from any thread.
  public var fired: EndPoint<Void> {
    EndPoint(upstream: subject.eraseToAnyPublisher(), queue: nil)
  }

  /// Starts the timer, replacing any earlier schedule: it fires `delay` from now, and with
  /// `repeats` every `delay` after that.
  ///
  /// ```swift
  /// timer.fire(after: .milliseconds(250))
  /// ```
  ///
  /// A repeating delay under 100 microseconds is raised to it, as Foundation's `Timer` does.
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter delay: The time until the first tick, and between ticks when repeating.
  public func fire(after delay: Duration) {
    let minimum = Duration.microseconds(100)
    let stride = Time.Stride.swiftyStride(
      repeats && delay < minimum ? minimum : delay
    )
    let (generation, previous) = state.withLock { state in
      state.generation &+= 1
      let previous = state.repeating
      state.repeating = nil
      return (state.generation, previous)
    }
    previous?.cancel()
    let start = scheduler.now.advanced(by: stride)
    if repeats {
      let token = scheduler.schedule(
        after: start,
        interval: stride,
        tolerance: tolerance,
        options: nil
      ) { [weak self] in
        self?.tick(generation)
      }
      let stale = state.withLock { state in
        guard state.generation == generation else { return true }
        state.repeating = token
        return false
      }
      if stale { token.cancel() }
    } else {
      scheduler.schedule(after: start, tolerance: tolerance, options: nil) { [weak self] in
        self?.tick(generation)
      }
    }
  }

  /// Stops the timer; a later ``fire(after:)-(Duration)`` starts it again.
  ///
  /// ```swift
  /// timer.disable()
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  public func disable() {
    let previous = state.withLock { state in
      state.generation &+= 1
      let previous = state.repeating
      state.repeating = nil
      return previous
    }
    previous?.cancel()
  }

  private func tick(_ generation: Int) {
    guard state.withLock({ $0.generation == generation }) else { return }
    subject.send(())
  }
}

extension TimerSignal {
  /// Creates a timer on the main queue, where SwiftySignals fired its timers.
  ///
  /// ```swift
  /// let timer = TimerSignal(repeats: true)
  /// ```
  ///
  /// Timed by `DispatchQueue.main`, not a run loop: on Linux the main queue must be serviced
  /// (`dispatchMain()`, an async `main`, or a main-actor task).
  ///
  /// > Thread safety: Ticks are delivered on the main queue.
  ///
  /// - Parameters:
  ///   - repeats: Whether it fires repeatedly or once.
  ///   - tolerance: How late the queue may run a tick.
  public convenience init(repeats: Bool, tolerance: Duration = .zero) {
    self.init(repeats: repeats, tolerance: tolerance, scheduler: DispatchQueue.main)
  }

  /// Creates a timer on the main queue, with SwiftySignals' tolerance in seconds.
  ///
  /// ```swift
  /// let timer = TimerSignal(repeats: true, tolerance: 0.1)
  /// ```
  ///
  /// > Thread safety: Ticks are delivered on the main queue.
  ///
  /// - Parameters:
  ///   - repeats: Whether it fires repeatedly or once.
  ///   - tolerance: How late the queue may run a tick, in seconds (SwiftySignals'
  ///     `TimeInterval`).
  public convenience init(repeats: Bool, tolerance: Double) {
    self.init(repeats: repeats, tolerance: .seconds(tolerance))
  }
}
