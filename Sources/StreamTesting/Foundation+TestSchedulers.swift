public import Foundation
import StreamCore
public import StreamFoundation

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

// Test stand-ins for Foundation's schedulers (StreamFoundation), as combine-schedulers names
// them. Their clock starts at 1970-01-01, as there, so tests do not depend on when they run.

extension RunLoop {
  /// A test scheduler that stands in for a run loop: `AnySchedulerOf<RunLoop>` code is tested
  /// with it, and its clock moves only when advanced.
  ///
  /// ```swift
  /// let scheduler = RunLoop.test
  /// let model = SearchModel(scheduler: scheduler.eraseToAnyScheduler())
  /// scheduler.advance(by: .seconds(1))
  /// ```
  ///
  /// Each use makes a new scheduler; keep the one you pass to the code under test.
  public static var test: TestSchedulerOf<RunLoop> {
    TestScheduler(now: RunLoop.SchedulerTimeType(Date(timeIntervalSince1970: 0)))
  }

  /// A scheduler typed as a run loop's that fails the test whenever it is used; its failures
  /// name it "RunLoop".
  public static var unimplemented: UnimplementedSchedulerOf<RunLoop> {
    unimplemented("RunLoop")
  }

  /// A scheduler typed as a run loop's that fails the test whenever it is used.
  ///
  /// ```swift
  /// let model = SearchModel(scheduler: RunLoop.unimplemented("search").eraseToAnyScheduler())
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter prefix: Names the scheduler in every failure.
  /// - Returns: The scheduler.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<RunLoop> {
    UnimplementedScheduler(prefix, now: RunLoop.SchedulerTimeType(Date(timeIntervalSince1970: 0)))
  }
}

extension OperationQueue {
  /// A test scheduler that stands in for an operation queue: `AnySchedulerOf<OperationQueue>`
  /// code is tested with it, and its clock moves only when advanced.
  ///
  /// ```swift
  /// let scheduler = OperationQueue.test
  /// scheduler.advance(by: 2)
  /// ```
  ///
  /// Each use makes a new scheduler; keep the one you pass to the code under test.
  public static var test: TestSchedulerOf<OperationQueue> {
    TestScheduler(now: OperationQueue.SchedulerTimeType(Date(timeIntervalSince1970: 0)))
  }

  /// A scheduler typed as an operation queue's that fails the test whenever it is used; its
  /// failures name it "OperationQueue".
  public static var unimplemented: UnimplementedSchedulerOf<OperationQueue> {
    unimplemented("OperationQueue")
  }

  /// A scheduler typed as an operation queue's that fails the test whenever it is used.
  ///
  /// ```swift
  /// let uploader = Uploader(scheduler: OperationQueue.unimplemented("upload").eraseToAnyScheduler())
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter prefix: Names the scheduler in every failure.
  /// - Returns: The scheduler.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<OperationQueue> {
    UnimplementedScheduler(
      prefix,
      now: OperationQueue.SchedulerTimeType(Date(timeIntervalSince1970: 0))
    )
  }
}

#endif
