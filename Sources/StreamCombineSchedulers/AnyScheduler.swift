public import Dispatch
public import StreamCore

/// A type-erased scheduler: any scheduler with the same time and options types, behind one type.
///
/// Code that takes a scheduler as a dependency stores an `AnyScheduler` instead of being generic
/// over the scheduler, so production passes a real queue and a test passes a virtual-time one:
///
/// ```swift
/// final class SearchModel {
///   let scheduler: AnySchedulerOf<DispatchQueue>
///   init(scheduler: AnySchedulerOf<DispatchQueue> = .main) { self.scheduler = scheduler }
/// }
/// let live = SearchModel()                                    // DispatchQueue.main
/// let test = SearchModel(scheduler: DispatchQueue.test.eraseToAnyScheduler())
/// ```
///
/// Every call goes straight to the wrapped scheduler: the action you pass is the action it
/// receives, so erasing adds no allocation per scheduled action. Erasing an `AnyScheduler` again
/// returns it unchanged.
///
/// > Thread safety: `Sendable`; it is as safe to call from any thread as the scheduler it wraps.
public struct AnyScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  private let box: AnySchedulerBox<SchedulerTimeType, SchedulerOptions>

  /// Wraps `scheduler`.
  ///
  /// ```swift
  /// let main = AnyScheduler(DispatchQueue.main)
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter scheduler: The scheduler every call is forwarded to.
  public init<S: Scheduler>(_ scheduler: S)
  where S.SchedulerTimeType == SchedulerTimeType, S.SchedulerOptions == SchedulerOptions {
    if let erased = scheduler as? AnyScheduler<SchedulerTimeType, SchedulerOptions> {
      box = erased.box
    } else {
      box = WrappedSchedulerBox(scheduler)
    }
  }

  /// Builds a scheduler from closures, one per requirement of `Scheduler`.
  ///
  /// ```swift
  /// let logging = AnyScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>(
  ///   minimumTolerance: { DispatchQueue.main.minimumTolerance },
  ///   now: { DispatchQueue.main.now },
  ///   scheduleImmediately: { options, action in
  ///     print("now"); DispatchQueue.main.schedule(options: options, action)
  ///   },
  ///   delayed: { date, tolerance, options, action in
  ///     DispatchQueue.main.schedule(after: date, tolerance: tolerance, options: options, action)
  ///   },
  ///   interval: { date, interval, tolerance, options, action in
  ///     DispatchQueue.main.schedule(
  ///       after: date, interval: interval, tolerance: tolerance, options: options, action)
  ///   }
  /// )
  /// ```
  ///
  /// > Thread safety: May be called from any thread; the closures are called on the threads
  /// > that use the scheduler, so they must be safe to call from any thread.
  ///
  /// - Parameters:
  ///   - minimumTolerance: Returns the scheduler's minimum tolerance.
  ///   - now: Returns the scheduler's current time.
  ///   - scheduleImmediately: Schedules an action as soon as possible.
  ///   - delayed: Schedules an action after a date, with a tolerance.
  ///   - interval: Schedules a repeating action and returns what cancels it.
  public init(
    minimumTolerance: @escaping @Sendable () -> SchedulerTimeType.Stride,
    now: @escaping @Sendable () -> SchedulerTimeType,
    scheduleImmediately:
      @escaping @Sendable (SchedulerOptions?, @escaping @Sendable () -> Void) ->
      Void,
    delayed:
      @escaping @Sendable (
        SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?,
        @escaping @Sendable () -> Void
      ) -> Void,
    interval:
      @escaping @Sendable (
        SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?,
        @escaping @Sendable () -> Void
      ) -> any Cancellable
  ) {
    box = ClosureSchedulerBox(
      minimumTolerance: minimumTolerance,
      now: now,
      immediately: scheduleImmediately,
      delayed: delayed,
      interval: interval
    )
  }

  /// The wrapped scheduler's current time.
  public var now: SchedulerTimeType { box.now }

  /// The wrapped scheduler's minimum tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { box.minimumTolerance }

  /// Schedules `action` on the wrapped scheduler, as soon as possible.
  ///
  /// > Thread safety: As the wrapped scheduler's `schedule(options:_:)`.
  ///
  /// - Parameters:
  ///   - options: Passed to the wrapped scheduler.
  ///   - action: The closure to run.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    box.schedule(options: options, action)
  }

  /// Schedules `action` on the wrapped scheduler, after `date`.
  ///
  /// > Thread safety: As the wrapped scheduler's `schedule(after:tolerance:options:_:)`.
  ///
  /// - Parameters:
  ///   - date: The earliest time to run the action.
  ///   - tolerance: How late the action may run.
  ///   - options: Passed to the wrapped scheduler.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    box.schedule(after: date, tolerance: tolerance, options: options, action)
  }

  /// Schedules `action` on the wrapped scheduler, at `date` and then every `interval`.
  ///
  /// > Thread safety: As the wrapped scheduler's `schedule(after:interval:tolerance:options:_:)`.
  ///
  /// - Parameters:
  ///   - date: The time of the first run.
  ///   - interval: The time between runs.
  ///   - tolerance: How late each run may be.
  ///   - options: Passed to the wrapped scheduler.
  ///   - action: The closure to run.
  /// - Returns: What the wrapped scheduler returns to stop the repetition.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    box.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
  }
}

/// `AnyScheduler` with the time and options of `S`: `AnySchedulerOf<DispatchQueue>`.
public typealias AnySchedulerOf<S: Scheduler> = AnyScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

extension Scheduler {
  /// Wraps this scheduler in an ``AnyScheduler``.
  ///
  /// ```swift
  /// let scheduler: AnySchedulerOf<DispatchQueue> = DispatchQueue.main.eraseToAnyScheduler()
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Returns: A type-erased scheduler that forwards every call to this one.
  public func eraseToAnyScheduler() -> AnyScheduler<SchedulerTimeType, SchedulerOptions> {
    AnyScheduler(self)
  }
}

extension AnyScheduler
where
  SchedulerTimeType == DispatchQueue.SchedulerTimeType,
  SchedulerOptions == DispatchQueue.SchedulerOptions
{
  /// The main dispatch queue, erased: `AnySchedulerOf<DispatchQueue>.main`.
  public static var main: Self { DispatchQueue.main.eraseToAnyScheduler() }

  /// A global dispatch queue, erased.
  ///
  /// ```swift
  /// let background: AnySchedulerOf<DispatchQueue> = .global(qos: .utility)
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter qos: The quality-of-service class of the global queue.
  /// - Returns: The erased global queue.
  public static func global(qos: DispatchQoS.QoSClass = .default) -> Self {
    DispatchQueue.global(qos: qos).eraseToAnyScheduler()
  }
}

// The erased scheduler's storage: a class per wrapped shape, so that `AnyScheduler` holds one
// reference and passes each action through untouched. Subclasses override every method.
// Sendable: the subclasses store only a scheduler, which may be called from any thread (the
// Scheduler contract, as in Combine, whether or not its type says `Sendable`), or `@Sendable`
// closures.
class AnySchedulerBox<Time: Strideable, Options>: @unchecked Sendable
where Time.Stride: SchedulerTimeIntervalConvertible {
  var now: Time { fatalError("AnySchedulerBox.now is abstract") }
  var minimumTolerance: Time.Stride { fatalError("AnySchedulerBox.minimumTolerance is abstract") }

  func schedule(options: Options?, _ action: @escaping @Sendable () -> Void) {
    fatalError("AnySchedulerBox.schedule(options:_:) is abstract")
  }

  func schedule(
    after date: Time,
    tolerance: Time.Stride,
    options: Options?,
    _ action: @escaping @Sendable () -> Void
  ) {
    fatalError("AnySchedulerBox.schedule(after:tolerance:options:_:) is abstract")
  }

  func schedule(
    after date: Time,
    interval: Time.Stride,
    tolerance: Time.Stride,
    options: Options?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    fatalError("AnySchedulerBox.schedule(after:interval:tolerance:options:_:) is abstract")
  }
}

// Sendable: the one stored property is immutable; the wrapped scheduler is used from whichever
// thread uses the `AnyScheduler`, as Combine's schedulers are (a scheduler is shared by contract).
final class WrappedSchedulerBox<S: Scheduler>: AnySchedulerBox<
  S.SchedulerTimeType, S.SchedulerOptions
>, @unchecked Sendable
{
  private let scheduler: S

  init(_ scheduler: S) {
    self.scheduler = scheduler
  }

  override var now: S.SchedulerTimeType { scheduler.now }
  override var minimumTolerance: S.SchedulerTimeType.Stride { scheduler.minimumTolerance }

  override func schedule(options: S.SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    scheduler.schedule(options: options, action)
  }

  override func schedule(
    after date: S.SchedulerTimeType,
    tolerance: S.SchedulerTimeType.Stride,
    options: S.SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    scheduler.schedule(after: date, tolerance: tolerance, options: options, action)
  }

  override func schedule(
    after date: S.SchedulerTimeType,
    interval: S.SchedulerTimeType.Stride,
    tolerance: S.SchedulerTimeType.Stride,
    options: S.SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    scheduler.schedule(
      after: date,
      interval: interval,
      tolerance: tolerance,
      options: options,
      action
    )
  }
}

// Sendable: every stored property is an immutable `@Sendable` closure.
final class ClosureSchedulerBox<Time: Strideable, Options>: AnySchedulerBox<Time, Options>,
  @unchecked Sendable
where Time.Stride: SchedulerTimeIntervalConvertible {
  typealias Action = @Sendable () -> Void

  private let tolerance: @Sendable () -> Time.Stride
  private let clock: @Sendable () -> Time
  private let immediately: @Sendable (Options?, @escaping Action) -> Void
  private let delayed: @Sendable (Time, Time.Stride, Options?, @escaping Action) -> Void
  private let repeating:
    @Sendable (Time, Time.Stride, Time.Stride, Options?, @escaping Action) -> any Cancellable

  init(
    minimumTolerance: @escaping @Sendable () -> Time.Stride,
    now: @escaping @Sendable () -> Time,
    immediately: @escaping @Sendable (Options?, @escaping Action) -> Void,
    delayed: @escaping @Sendable (Time, Time.Stride, Options?, @escaping Action) -> Void,
    interval:
      @escaping @Sendable (Time, Time.Stride, Time.Stride, Options?, @escaping Action) ->
      any Cancellable
  ) {
    tolerance = minimumTolerance
    clock = now
    self.immediately = immediately
    self.delayed = delayed
    repeating = interval
  }

  override var now: Time { clock() }
  override var minimumTolerance: Time.Stride { tolerance() }

  override func schedule(options: Options?, _ action: @escaping Action) {
    immediately(options, action)
  }

  override func schedule(
    after date: Time,
    tolerance: Time.Stride,
    options: Options?,
    _ action: @escaping Action
  ) {
    delayed(date, tolerance, options, action)
  }

  override func schedule(
    after date: Time,
    interval: Time.Stride,
    tolerance: Time.Stride,
    options: Options?,
    _ action: @escaping Action
  ) -> any Cancellable {
    repeating(date, interval, tolerance, options, action)
  }
}
