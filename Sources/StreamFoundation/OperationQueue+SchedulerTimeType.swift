public import Foundation
public import StreamCore

// On Apple platforms Foundation declares these names itself, for Apple's Combine.
#if !canImport(Darwin)

extension OperationQueue {
  /// An operation queue's time: a `Date`, with strides in seconds as a `TimeInterval`.
  ///
  /// ```swift
  /// let start = OperationQueue.SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 0))
  /// let later = start.advanced(by: .milliseconds(1_500))
  /// start.distance(to: later).timeInterval  // 1.5
  /// ```
  ///
  /// A type of its own, as in Combine, with the same members as `OperationQueue.SchedulerTimeType`.
  /// The time encodes as Combine's does, `{"date": …}`, and its stride as `{"magnitude": …}`.
  ///
  /// > Thread safety: A value type; use it from any thread.
  public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
    /// The date this time stands for.
    public var date: Date

    /// Creates the time of `date`.
    ///
    /// - Parameter date: The date to represent.
    public init(_ date: Date) {
      self.date = date
    }

    /// Decodes the time from its `date` key, as Combine encodes it.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: The decoder's error if it holds no date.
    public init(from decoder: any Decoder) throws {
      date = try decoder.container(keyedBy: CodingKeys.self).decode(Date.self, forKey: .date)
    }

    /// Encodes the time as Combine does: `{"date": …}`.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: The encoder's error if it cannot encode the date.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(date, forKey: .date)
    }

    private enum CodingKeys: String, CodingKey {
      case date
    }

    /// The interval from this time to `other`, in seconds.
    ///
    /// - Parameter other: Another time.
    /// - Returns: `other.date.timeIntervalSince(date)`.
    public func distance(to other: SchedulerTimeType) -> Stride {
      Stride(other.date.timeIntervalSince(date))
    }

    /// This time moved by `n`.
    ///
    /// - Parameter n: The interval to move by; negative moves back.
    /// - Returns: The time `n.timeInterval` seconds after this one.
    public func advanced(by n: Stride) -> SchedulerTimeType {
      SchedulerTimeType(date.addingTimeInterval(n.timeInterval))
    }

    /// An interval between two times, in seconds.
    ///
    /// ```swift
    /// let a: OperationQueue.SchedulerTimeType.Stride = 2  // 2 s
    /// let b = OperationQueue.SchedulerTimeType.Stride.milliseconds(250)
    /// (a + b).timeInterval  // 2.25
    /// ```
    ///
    /// Integer and float literals count seconds, as in Combine. Unlike a dispatch queue's stride the
    /// value is a `Double`, so nothing saturates or traps; `magnitude` keeps the sign.
    ///
    /// > Thread safety: A value type; use it from any thread.
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
      ExpressibleByFloatLiteral, Hashable, Codable, Sendable
    {
      /// Float literals count seconds.
      public typealias FloatLiteralType = TimeInterval
      /// Integer literals count seconds; they are read as a `TimeInterval`.
      public typealias IntegerLiteralType = TimeInterval
      /// The type of ``magnitude``.
      public typealias Magnitude = TimeInterval

      /// The interval in seconds; negative for an interval back in time.
      public var magnitude: TimeInterval

      /// The interval in seconds.
      public var timeInterval: TimeInterval { magnitude }

      /// Creates an interval of `timeInterval` seconds.
      ///
      /// - Parameter timeInterval: The seconds.
      public init(_ timeInterval: TimeInterval) {
        magnitude = timeInterval
      }

      /// Creates an interval of `value` seconds.
      ///
      /// - Parameter value: The seconds.
      public init(integerLiteral value: TimeInterval) {
        magnitude = value
      }

      /// Creates an interval of `value` seconds.
      ///
      /// - Parameter value: The seconds.
      public init(floatLiteral value: TimeInterval) {
        magnitude = value
      }

      /// Creates an interval of `source` seconds, or `nil` when a `Double` cannot hold `source`
      /// exactly.
      ///
      /// - Parameter source: The seconds.
      public init?<T: BinaryInteger>(exactly source: T) {
        guard let seconds = TimeInterval(exactly: source) else { return nil }
        magnitude = seconds
      }

      /// Decodes the interval from its `magnitude` key, as Combine encodes it.
      ///
      /// - Parameter decoder: The decoder to read from.
      /// - Throws: The decoder's error if it holds no number.
      public init(from decoder: any Decoder) throws {
        magnitude = try decoder.container(keyedBy: CodingKeys.self)
          .decode(TimeInterval.self, forKey: .magnitude)
      }

      /// Encodes the interval as Combine does: `{"magnitude": seconds}`.
      ///
      /// - Parameter encoder: The encoder to write to.
      /// - Throws: The encoder's error if it cannot encode the number.
      public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(magnitude, forKey: .magnitude)
      }

      private enum CodingKeys: String, CodingKey {
        case magnitude
      }

      /// Orders intervals by their seconds.
      public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }

      /// The sum of two intervals.
      public static func + (lhs: Stride, rhs: Stride) -> Stride {
        Stride(lhs.magnitude + rhs.magnitude)
      }

      /// The difference of two intervals.
      public static func - (lhs: Stride, rhs: Stride) -> Stride {
        Stride(lhs.magnitude - rhs.magnitude)
      }

      /// The product of two intervals, both read as seconds.
      public static func * (lhs: Stride, rhs: Stride) -> Stride {
        Stride(lhs.magnitude * rhs.magnitude)
      }

      /// Adds `rhs` to `lhs`.
      public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

      /// Subtracts `rhs` from `lhs`.
      public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }

      /// Multiplies `lhs` by `rhs`.
      public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }

      /// An interval of `s` seconds.
      public static func seconds(_ s: Int) -> Stride { Stride(TimeInterval(s)) }

      /// An interval of `s` seconds.
      public static func seconds(_ s: Double) -> Stride { Stride(s) }

      /// An interval of `ms` milliseconds.
      public static func milliseconds(_ ms: Int) -> Stride { Stride(TimeInterval(ms) / 1_000) }

      /// An interval of `us` microseconds.
      public static func microseconds(_ us: Int) -> Stride { Stride(TimeInterval(us) / 1_000_000) }

      /// An interval of `ns` nanoseconds.
      public static func nanoseconds(_ ns: Int) -> Stride {
        Stride(TimeInterval(ns) / 1_000_000_000)
      }
    }
  }
}

#endif
