public import Dispatch
public import StreamCore

/// A scheduler for the main queue that runs an action at once when it is scheduled from the main
/// queue, and hops to the main queue otherwise.
///
/// ```swift
/// results
///   .receive(on: UIScheduler.shared)
///   .sink { label.text = $0 }  // no hop when the results already arrive on the main queue
/// ```
///
/// `DispatchQueue.main` always hops, even from the main queue, so a value that is already on
/// the main queue waits a turn of the main loop; this scheduler skips that wait. Delayed and
/// repeating actions go to `DispatchQueue.main` as they are.
///
/// - Important: Actions scheduled from the main queue run before actions already waiting to
///   hop onto it, so order is kept only among actions scheduled from the same side.
///
/// > Thread safety: `Sendable`; every method may be called from any thread. Actions run on the
/// > main queue.
public struct UIScheduler: Scheduler, Sendable {
  /// The main dispatch queue's time type.
  public typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  /// The UI scheduler takes no options.
  public typealias SchedulerOptions = Never

  /// The one UI scheduler.
  public static let shared = UIScheduler()

  private init() {
    MainQueueMark.install()
  }

  /// The main queue's current time.
  public var now: SchedulerTimeType { DispatchQueue.main.now }

  /// The main queue's minimum tolerance.
  public var minimumTolerance: SchedulerTimeType.Stride { DispatchQueue.main.minimumTolerance }

  /// Runs `action` at once when called on the main queue; otherwise runs it on the main queue
  /// as soon as possible.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on the main queue.
  ///
  /// - Parameters:
  ///   - options: Always `nil`.
  ///   - action: The closure to run.
  public func schedule(options: Never?, _ action: @escaping @Sendable () -> Void) {
    if MainQueueMark.isOnMainQueue {
      action()
    } else {
      DispatchQueue.main.async(execute: action)
    }
  }

  /// Runs `action` on the main queue after `date`.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on the main queue.
  ///
  /// - Parameters:
  ///   - date: The earliest time to run the action.
  ///   - tolerance: How late the action may run.
  ///   - options: Always `nil`.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: Never?,
    _ action: @escaping @Sendable () -> Void
  ) {
    DispatchQueue.main.schedule(after: date, tolerance: tolerance, options: nil, action)
  }

  /// Runs `action` on the main queue at `date` and then every `interval`.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on the main queue.
  ///
  /// - Parameters:
  ///   - date: The time of the first run.
  ///   - interval: The time between runs.
  ///   - tolerance: How late each run may be.
  ///   - options: Always `nil`.
  ///   - action: The closure to run.
  /// - Returns: A cancellable that stops the repetition.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: Never?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    DispatchQueue.main.schedule(
      after: date,
      interval: interval,
      tolerance: tolerance,
      options: nil,
      action
    )
  }
}

extension AnyScheduler
where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == Never {
  /// ``UIScheduler/shared``, erased: `let scheduler: AnySchedulerOf<UIScheduler> = .shared`.
  public static var shared: Self { UIScheduler.shared.eraseToAnyScheduler() }
}

extension UIScheduler {
  /// An immediate scheduler typed as the UI scheduler's, for tests and previews.
  public static var immediate: ImmediateSchedulerOf<UIScheduler> {
    ImmediateSchedulerOf(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }
}

/// Tells whether the calling code runs on the main dispatch queue: a value is set on the main
/// queue's specific-data key once, and read back with `DispatchQueue.getSpecific(key:)`.
enum MainQueueMark {
  private static let key: DispatchSpecificKey<UInt8> = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
  }()

  static func install() {
    _ = key
  }

  static var isOnMainQueue: Bool {
    DispatchQueue.getSpecific(key: key) == 1
  }
}
