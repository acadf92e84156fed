public import Foundation
import StreamCore
public import StreamFoundation

// combine-schedulers' additions for Foundation's schedulers. On Apple platforms they come with
// Apple's Foundation types; StreamFoundation declares the types elsewhere only, so these too.
#if !canImport(Darwin)

extension AnyScheduler
where SchedulerTimeType == RunLoop.SchedulerTimeType, SchedulerOptions == RunLoop.SchedulerOptions {
  /// The main run loop, type-erased: `AnySchedulerOf<RunLoop>.main`.
  ///
  /// ```swift
  /// let scheduler: AnySchedulerOf<RunLoop> = .main
  /// ```
  public static var main: Self { RunLoop.main.eraseToAnyScheduler() }

  /// An immediate scheduler typed as a run loop's, type-erased: it runs every action at once.
  public static var immediate: Self { RunLoop.immediate.eraseToAnyScheduler() }
}

extension RunLoop {
  /// An immediate scheduler typed as a run loop's: it runs every action at once, and its `now`
  /// is the moment it was made.
  ///
  /// ```swift
  /// let model = SearchModel(scheduler: RunLoop.immediate.eraseToAnyScheduler())
  /// ```
  public static var immediate: ImmediateSchedulerOf<RunLoop> {
    ImmediateSchedulerOf(now: RunLoop.SchedulerTimeType(Date()))
  }
}

extension AnyScheduler
where
  SchedulerTimeType == OperationQueue.SchedulerTimeType,
  SchedulerOptions == OperationQueue.SchedulerOptions
{
  /// The main operation queue, type-erased: `AnySchedulerOf<OperationQueue>.main`.
  public static var main: Self { OperationQueue.main.eraseToAnyScheduler() }

  /// An immediate scheduler typed as an operation queue's, type-erased: it runs every action at
  /// once.
  public static var immediate: Self { OperationQueue.immediate.eraseToAnyScheduler() }
}

extension OperationQueue {
  /// An immediate scheduler typed as an operation queue's: it runs every action at once, and its
  /// `now` is the moment it was made.
  public static var immediate: ImmediateSchedulerOf<OperationQueue> {
    ImmediateSchedulerOf(now: OperationQueue.SchedulerTimeType(Date()))
  }
}

#endif
