/// A protocol that defines when and how to execute a closure.
///
/// ```swift
/// let scheduler = DispatchQueue(label: "work")
/// scheduler.schedule { print("soon, on the queue") }
/// scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(50))) {
///   print("50 ms later")
/// }
/// let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {
///   print("tick")
/// }
/// timer.cancel()
/// ```
///
/// Time-based operators such as `debounce`, `delay` and `receive(on:)` take a scheduler, so the
/// same code runs on a dispatch queue in production and on a virtual-time test scheduler in
/// tests. A scheduler may run a closure on whatever thread or queue it manages, but it should run
/// closures it was given for the same time in the order it was given them.
///
/// As in Combine, `Scheduler` doesn't refine `Sendable`: a scheduler class of your own with `var`
/// state conforms as it is, and so does Foundation's `RunLoop`.
///
/// **Difference from Combine:** every action is `@escaping @Sendable () -> Void` rather than
/// `@escaping () -> Void`. A scheduler runs its actions on a thread of its own, and in the Swift 6
/// language mode a plain closure written in an actor's code (a `@MainActor` view model's, say)
/// is isolated to that actor: handed to a scheduler that runs it elsewhere, it would race without
/// a word (Combine, compiled without strict checking, gets a runtime check inserted there
/// instead). A conforming type may keep Combine's plain `() -> Void` parameters, which satisfy
/// these requirements; closures passed to `schedule` that only capture `Sendable` values need no
/// change.
///
/// > Thread safety: Conforming types must allow every method to be called from any thread.
public protocol Scheduler<SchedulerTimeType>: SendableMetatype {
  /// Describes an instant in time for this scheduler.
  associatedtype SchedulerTimeType: Strideable
  where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible

  /// A type that defines options accepted by the scheduler.
  ///
  /// Schedulers that take no options use `Never`.
  associatedtype SchedulerOptions

  /// This scheduler's definition of the current moment in time.
  var now: SchedulerTimeType { get }

  /// The minimum tolerance allowed by the scheduler.
  var minimumTolerance: SchedulerTimeType.Stride { get }

  /// Performs the action at the next possible opportunity.
  ///
  /// - Parameters:
  ///   - options: Options that affect how the action runs, or `nil` for the defaults.
  ///   - action: The closure to run.
  func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void)

  /// Performs the action at some time after the specified date.
  ///
  /// - Parameters:
  ///   - date: The earliest time at which the action may run.
  ///   - tolerance: How late, after `date`, the scheduler may run the action.
  ///   - options: Options that affect how the action runs, or `nil` for the defaults.
  ///   - action: The closure to run.
  func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  )

  /// Performs the action at some time after the specified date, at the specified frequency,
  /// taking into account tolerance if possible.
  ///
  /// - Parameters:
  ///   - date: The earliest time of the first run.
  ///   - interval: The time between the starts of successive runs.
  ///   - tolerance: How late the scheduler may run each action.
  ///   - options: Options that affect how the action runs, or `nil` for the defaults.
  ///   - action: The closure to run repeatedly.
  /// - Returns: A cancellable that stops the repetition.
  func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable
}

extension Scheduler {
  /// Performs the action at some time after the specified date, using the default options.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: 1), tolerance: .milliseconds(10)) {
  ///   print("about a second later")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - date: The earliest time at which the action may run.
  ///   - tolerance: How late, after `date`, the scheduler may run the action.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    _ action: @escaping @Sendable () -> Void
  ) {
    schedule(after: date, tolerance: tolerance, options: nil, action)
  }

  /// Performs the action at some time after the specified date, using the scheduler's minimum
  /// tolerance and the default options.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(300))) {
  ///   print("300 ms later")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - date: The earliest time at which the action may run.
  ///   - action: The closure to run.
  public func schedule(after date: SchedulerTimeType, _ action: @escaping @Sendable () -> Void) {
    schedule(after: date, tolerance: minimumTolerance, options: nil, action)
  }

  /// Performs the action at the next possible opportunity, using the default options.
  ///
  /// ```swift
  /// scheduler.schedule { print("soon") }
  /// ```
  ///
  /// - Parameter action: The closure to run.
  public func schedule(_ action: @escaping @Sendable () -> Void) {
    schedule(options: nil, action)
  }

  /// Performs the action at some time after the specified date, at the specified frequency,
  /// using the default options.
  ///
  /// ```swift
  /// let timer = scheduler.schedule(
  ///   after: scheduler.now,
  ///   interval: .seconds(1),
  ///   tolerance: .milliseconds(100)
  /// ) { print("tick") }
  /// ```
  ///
  /// - Parameters:
  ///   - date: The earliest time of the first run.
  ///   - interval: The time between the starts of successive runs.
  ///   - tolerance: How late the scheduler may run each action.
  ///   - action: The closure to run repeatedly.
  /// - Returns: A cancellable that stops the repetition.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
  }

  /// Performs the action at some time after the specified date, at the specified frequency,
  /// using the scheduler's minimum tolerance and the default options.
  ///
  /// ```swift
  /// let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {
  ///   print("tick")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - date: The earliest time of the first run.
  ///   - interval: The time between the starts of successive runs.
  ///   - action: The closure to run repeatedly.
  /// - Returns: A cancellable that stops the repetition.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    schedule(
      after: date,
      interval: interval,
      tolerance: minimumTolerance,
      options: nil,
      action
    )
  }
}

/// A protocol that provides a scheduler with an expression for relative time.
///
/// ```swift
/// let delay: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(250)
/// let later = DispatchQueue.main.now.advanced(by: delay)
/// ```
///
/// A scheduler's stride type conforms so that operators can be written with `.seconds(1)` or
/// `.milliseconds(300)` whatever the scheduler.
///
/// > Thread safety: Conforming types are values; the factory methods are pure.
public protocol SchedulerTimeIntervalConvertible {
  /// Converts the specified number of seconds into an instance of this scheduler time type.
  static func seconds(_ s: Int) -> Self

  /// Converts the specified number of seconds, as a floating-point value, into an instance of
  /// this scheduler time type.
  static func seconds(_ s: Double) -> Self

  /// Converts the specified number of milliseconds into an instance of this scheduler time type.
  static func milliseconds(_ ms: Int) -> Self

  /// Converts the specified number of microseconds into an instance of this scheduler time type.
  static func microseconds(_ us: Int) -> Self

  /// Converts the specified number of nanoseconds into an instance of this scheduler time type.
  static func nanoseconds(_ ns: Int) -> Self
}
