public import Dispatch
public import StreamCore
import Testing
import XCTest

/// A scheduler that fails the current test whenever it is used: to check that code under test
/// never schedules anything, or never asks the time.
///
/// ```swift
/// @Test func cachedLookup_neverHopsQueues() {
///   let model = SearchModel(scheduler: DispatchQueue.unimplemented.eraseToAnyScheduler())
///   model.lookUpCached("swift")  // a test failure if it schedules work
/// }
/// ```
///
/// Every requirement records one failure naming the scheduler (its `prefix`) and what was
/// asked, then goes on as an immediate scheduler would: a scheduled action runs at once, on the
/// calling thread, so the test carries on and can report more. The failure is an
/// `Issue.record` in a Swift Testing test and an `XCTFail` otherwise.
///
/// > Thread safety: `Sendable`; use it from any thread.
// Sendable: both stored properties are immutable; the time is a value the scheduler only returns.
public struct UnimplementedScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler,
  @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  /// Names the scheduler in every failure, such as `"DispatchQueue"`; empty for no name.
  public let prefix: String
  private let instant: SchedulerTimeType

  /// Creates a scheduler that fails the test when used.
  ///
  /// ```swift
  /// let scheduler = UnimplementedSchedulerOf<DispatchQueue>(
  ///   "main queue", now: .init(.init(uptimeNanoseconds: 1)))
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - prefix: Names the scheduler in every failure.
  ///   - now: The time it reports (after recording a failure) when asked.
  public init(_ prefix: String = "", now: SchedulerTimeType) {
    self.prefix = prefix
    instant = now
  }

  /// Records a failure, then returns the time given at creation.
  public var now: SchedulerTimeType {
    report("was asked the current time")
    return instant
  }

  /// Records a failure, then returns zero.
  public var minimumTolerance: SchedulerTimeType.Stride {
    report("was asked its minimum tolerance")
    return .zero
  }

  /// Records a failure, then runs `action` at once.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on it.
  ///
  /// - Parameters:
  ///   - options: Ignored.
  ///   - action: Runs before this returns.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    report("scheduled an action to run at once")
    action()
  }

  /// Records a failure, then runs `action` at once.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on it.
  ///
  /// - Parameters:
  ///   - date: Ignored.
  ///   - tolerance: Ignored.
  ///   - options: Ignored.
  ///   - action: Runs before this returns.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    report("scheduled an action to run later")
    action()
  }

  /// Records a failure, then runs `action` once, at once.
  ///
  /// > Thread safety: May be called from any thread; `action` runs on it.
  ///
  /// - Parameters:
  ///   - date: Ignored.
  ///   - interval: Ignored.
  ///   - tolerance: Ignored.
  ///   - options: Ignored.
  ///   - action: Runs once before this returns.
  /// - Returns: A cancellable that does nothing.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    report("scheduled an action to repeat")
    action()
    return AnyCancellable {}
  }

  private func report(_ what: String) {
    let name =
      prefix.isEmpty ? "An unimplemented scheduler" : "\(prefix): an unimplemented scheduler"
    let message = "\(name) \(what)."
    if Test.current != nil {
      Issue.record(Comment(rawValue: message))
    } else {
      XCTFail(message)
    }
  }
}

/// An ``UnimplementedScheduler`` with the time and options of `S`.
public typealias UnimplementedSchedulerOf<S: Scheduler> = UnimplementedScheduler<
  S.SchedulerTimeType, S.SchedulerOptions
>

extension DispatchQueue {
  /// A scheduler typed as a dispatch queue's that fails the test whenever it is used; its
  /// failures name it "DispatchQueue".
  public static var unimplemented: UnimplementedSchedulerOf<DispatchQueue> {
    unimplemented("DispatchQueue")
  }

  /// A scheduler typed as a dispatch queue's that fails the test whenever it is used.
  ///
  /// ```swift
  /// let model = SearchModel(scheduler: DispatchQueue.unimplemented("search").eraseToAnyScheduler())
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter prefix: Names the scheduler in every failure.
  /// - Returns: The scheduler.
  public static func unimplemented(_ prefix: String) -> UnimplementedSchedulerOf<DispatchQueue> {
    UnimplementedScheduler(prefix, now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
  }
}
