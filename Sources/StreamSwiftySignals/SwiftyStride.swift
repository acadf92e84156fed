import PropertyWrappers
import SignalOperators
public import StreamCore

extension SchedulerTimeIntervalConvertible {
  /// Converts a Swift `Duration` to a scheduler stride, in whole nanoseconds.
  ///
  /// Negative durations become zero; durations beyond `Int.max` nanoseconds (about 292 years)
  /// are clamped to it.
  @usableFromInline
  static func swiftyStride(_ duration: Duration) -> Self {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, duration > .zero else { return .nanoseconds(0) }
    let (whole, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return .nanoseconds(Int.max) }
    let (total, overflow2) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
    return .nanoseconds(overflow2 ? Int.max : total)
  }
}
