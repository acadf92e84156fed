import FutureKit
import SignalOperators
import StreamCore

/// How a publisher's `values` sequence holds values that arrive before the task asks for them.
///
/// ```swift
/// for await reading in sensor.values(bufferingPolicy: .bufferingNewest(100)) { plot(reading) }
/// ```
///
/// With a policy the sequence requests `.unlimited` from the publisher when iteration starts, so
/// a publisher that doesn't wait for demand (a subject) can't lose values to a slow loop. The
/// policy says what happens when the loop falls behind.
///
/// > Thread safety: A `Sendable` value; the buffer it configures is guarded by a lock.
public enum AsyncBufferingPolicy: Hashable, Sendable {
  /// Keep every value; memory grows while the loop is behind.
  case unbounded

  /// Keep at most this many of the oldest unread values; drop values that arrive while full.
  case bufferingOldest(Int)

  /// Keep at most this many of the newest values; drop the oldest unread value to make room.
  case bufferingNewest(Int)
}

extension AsyncBufferingPolicy {
  /// The same policy, as the `values` machinery spells it.
  var buffering: ValuesBuffering {
    switch self {
    case .unbounded: .unbounded
    case .bufferingOldest(let limit): .bufferingOldest(limit)
    case .bufferingNewest(let limit): .bufferingNewest(limit)
    }
  }
}
