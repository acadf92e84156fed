public import Dispatch
public import StreamCore

/// An immediate scheduler typed as another scheduler: it runs every action at once, but its time
/// and options are those of `S`, so it stands in where code expects `S`.
///
/// ```swift
/// let model = SearchModel(scheduler: DispatchQueue.immediate.eraseToAnyScheduler())
/// model.query = "swift"  // the debounced search has already run
/// ```
///
/// - `schedule(options:_:)` and `schedule(after:tolerance:options:_:)` run the action before they
///   return, whatever the date.
/// - `schedule(after:interval:tolerance:options:_:)` runs the action once, before it returns, and
///   returns a cancellable that does nothing, as `ImmediateScheduler` does.
/// - ``now`` is the instant given at creation and never moves.
///
/// combine-schedulers names this type `ImmediateScheduler<SchedulerTimeType, SchedulerOptions>`
/// with `ImmediateSchedulerOf<S>` as an alias; here `ImmediateScheduler` is Combine's own
/// non-generic scheduler, so the type is `ImmediateSchedulerOf<S>` itself and
/// `ImmediateSchedulerOf<DispatchQueue>` reads the same in both.
///
/// > Thread safety: `Sendable`; every method may be called from any thread, and the action runs
/// > on that thread.
// Sendable: the only stored property is immutable; the time is a value the scheduler only returns.
public struct ImmediateSchedulerOf<S: Scheduler>: Scheduler, @unchecked Sendable {
  /// The time type of `S`.
  public typealias SchedulerTimeType = S.SchedulerTimeType
  /// The options of `S`, accepted and ignored.
  public typealias SchedulerOptions = S.SchedulerOptions

  /// The one instant of this scheduler.
  public let now: SchedulerTimeType

  /// Creates an immediate scheduler whose ``now`` is `now`.
  ///
  /// ```swift
  /// let scheduler = ImmediateSchedulerOf<DispatchQueue>(now: DispatchQueue.main.now)
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter now: The scheduler's time, which never moves.
  public init(now: SchedulerTimeType) {
    self.now = now
  }

  /// Zero: an immediate scheduler is never late.
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

  /// Runs `action` before returning.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on it.
  ///
  /// - Parameters:
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    action()
  }

  /// Runs `action` before returning, whatever `date` is.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on it.
  ///
  /// - Parameters:
  ///   - date: Ignored.
  ///   - tolerance: Ignored.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    action()
  }

  /// Runs `action` once, before returning.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on it.
  ///
  /// - Parameters:
  ///   - date: Ignored.
  ///   - interval: Ignored: an immediate scheduler cannot wait for the next interval.
  ///   - tolerance: Ignored.
  ///   - options: Ignored.
  ///   - action: The closure to run.
  /// - Returns: A cancellable that does nothing.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    action()
    return AnyCancellable {}
  }
}

extension DispatchQueue {
  /// An immediate scheduler typed as a dispatch queue's, for tests and previews that should not
  /// wait: `DispatchQueue.immediate.eraseToAnyScheduler()`.
  ///
  /// Its ``ImmediateSchedulerOf/now`` is one nanosecond of uptime (uptime zero would mean "now"
  /// to Dispatch).
  public static var immediate: ImmediateSchedulerOf<DispatchQueue> {
    ImmediateSchedulerOf(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }
}

extension AnyScheduler
where
  SchedulerTimeType == DispatchQueue.SchedulerTimeType,
  SchedulerOptions == DispatchQueue.SchedulerOptions
{
  /// `DispatchQueue.immediate`, erased: `let scheduler: AnySchedulerOf<DispatchQueue> = .immediate`.
  public static var immediate: Self { DispatchQueue.immediate.eraseToAnyScheduler() }
}
