/// A scheduler that runs every action at once, synchronously, on the calling thread.
///
/// ```swift
/// ImmediateScheduler.shared.schedule { print("first") }
/// ImmediateScheduler.shared.schedule(after: ImmediateScheduler.shared.now) {
///   print("second")
/// }
/// // Both have printed before this line runs.
/// ```
///
/// Use it where an API needs a scheduler but the work should not move, for example to make a
/// time-based operator synchronous in a test or a preview.
///
/// - `schedule(options:_:)` and `schedule(after:tolerance:options:_:)` run the action before
///   they return, whatever the date.
/// - `schedule(after:interval:tolerance:options:_:)` runs the action once, before it returns, and
///   returns a cancellable that does nothing: an immediate scheduler cannot wait for the next
///   interval.
/// - Time does not pass: ``now`` is the only instant, so every distance is zero and
///   `advanced(by:)` returns the same instant, as in Combine.
///
/// > Thread safety: Every method may be called from any thread; the action runs on that thread.
public struct ImmediateScheduler: Scheduler, Sendable {
  /// The time type used by the immediate scheduler: a single instant at which everything runs.
  ///
  /// ```swift
  /// let now = ImmediateScheduler.shared.now
  /// now.advanced(by: .seconds(5)) == now  // true
  /// ```
  ///
  /// The type has no stored value, so all instances are equal, `distance(to:)` is always zero
  /// and `advanced(by:)` returns `self`. It encodes as an empty keyed container.
  ///
  /// > Thread safety: A value type with no state; use it from any thread.
  public struct SchedulerTimeType: Strideable, Hashable, Codable, Sendable {
    init() {}

    /// Returns zero: every instant of the immediate scheduler is the same.
    ///
    /// - Parameter other: Another instant.
    /// - Returns: A stride of zero.
    public func distance(to other: SchedulerTimeType) -> Stride {
      0
    }

    /// Returns `self`: time does not pass on the immediate scheduler.
    ///
    /// - Parameter n: The stride to advance by; ignored.
    /// - Returns: This instant.
    public func advanced(by n: Stride) -> SchedulerTimeType {
      self
    }

    /// A count of abstract time units, for APIs that take an immediate-scheduler interval.
    ///
    /// ```swift
    /// let stride: ImmediateScheduler.SchedulerTimeType.Stride = .milliseconds(300)
    /// stride.magnitude  // 300
    /// ```
    ///
    /// The immediate scheduler never waits, so a stride has no unit: as in Combine, `.seconds(3)`,
    /// `.milliseconds(3)`, `.nanoseconds(3)` and the literal `3` are all a stride of magnitude 3.
    /// `.seconds(_: Double)` and float literals round toward zero and, like `Int(_:)`, trap on a
    /// value that does not fit. Arithmetic is `Int` arithmetic on ``magnitude`` and traps on
    /// overflow.
    ///
    /// > Thread safety: A value type; use it from any thread.
    public struct Stride: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, Comparable,
      SignedNumeric, Hashable, Codable, SchedulerTimeIntervalConvertible, Sendable
    {
      /// The type used for float literals.
      public typealias FloatLiteralType = Double

      /// The type used for integer literals.
      public typealias IntegerLiteralType = Int

      /// The type of ``magnitude``.
      public typealias Magnitude = Int

      /// The value of this stride.
      ///
      /// Unlike `Int.magnitude` this keeps the sign, as in Combine: it is the stride's value,
      /// not its absolute value.
      public var magnitude: Int

      /// Creates a stride with the given value.
      ///
      /// - Parameter value: The value of the stride.
      public init(_ value: Int) {
        magnitude = value
      }

      /// Creates a stride from an integer literal.
      ///
      /// - Parameter value: The value of the stride.
      public init(integerLiteral value: Int) {
        self.init(value)
      }

      /// Creates a stride from a float literal, rounding toward zero.
      ///
      /// - Parameter value: The value of the stride.
      public init(floatLiteral value: Double) {
        self.init(Int(value))
      }

      /// Creates a stride from an integer, if it fits in an `Int`.
      ///
      /// - Parameter source: The value of the stride.
      public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = Int(exactly: source) else { return nil }
        self.init(value)
      }

      /// Compares the values of two strides.
      public static func < (lhs: Stride, rhs: Stride) -> Bool {
        lhs.magnitude < rhs.magnitude
      }

      /// Adds the values of two strides.
      public static func + (lhs: Stride, rhs: Stride) -> Stride {
        Stride(lhs.magnitude + rhs.magnitude)
      }

      /// Subtracts the value of one stride from another.
      public static func - (lhs: Stride, rhs: Stride) -> Stride {
        Stride(lhs.magnitude - rhs.magnitude)
      }

      /// Multiplies the values of two strides.
      public static func * (lhs: Stride, rhs: Stride) -> Stride {
        Stride(lhs.magnitude * rhs.magnitude)
      }

      /// Adds a stride to this one.
      public static func += (lhs: inout Stride, rhs: Stride) {
        lhs = lhs + rhs
      }

      /// Subtracts a stride from this one.
      public static func -= (lhs: inout Stride, rhs: Stride) {
        lhs = lhs - rhs
      }

      /// Multiplies this stride by another.
      public static func *= (lhs: inout Stride, rhs: Stride) {
        lhs = lhs * rhs
      }

      /// Zero, as in Combine: the immediate scheduler has no clock, so a stride made from a
      /// unit of time is empty (a stride made from a number keeps it).
      public static func seconds(_ s: Int) -> Stride {
        Stride(0)
      }

      /// Zero, as in Combine: the immediate scheduler has no clock.
      public static func seconds(_ s: Double) -> Stride {
        Stride(0)
      }

      /// Zero, as in Combine: the immediate scheduler has no clock.
      public static func milliseconds(_ ms: Int) -> Stride {
        Stride(0)
      }

      /// Zero, as in Combine: the immediate scheduler has no clock.
      public static func microseconds(_ us: Int) -> Stride {
        Stride(0)
      }

      /// Zero, as in Combine: the immediate scheduler has no clock.
      public static func nanoseconds(_ ns: Int) -> Stride {
        Stride(0)
      }
    }
  }

  /// The immediate scheduler takes no options.
  public typealias SchedulerOptions = Never

  /// The shared instance of the immediate scheduler.
  ///
  /// ```swift
  /// publisher.receive(on: ImmediateScheduler.shared)
  /// ```
  ///
  /// As in Combine, this is the only instance; the scheduler has no state.
  public static let shared = ImmediateScheduler()

  private init() {}

  /// The one instant of the immediate scheduler.
  public var now: SchedulerTimeType { SchedulerTimeType() }

  /// Zero: the immediate scheduler is never late.
  public var minimumTolerance: SchedulerTimeType.Stride { 0 }

  /// Runs `action` at once, on the calling thread.
  ///
  /// - Parameters:
  ///   - options: Always `nil`; the scheduler takes no options.
  ///   - action: The closure to run.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    action()
  }

  /// Runs `action` at once, on the calling thread, whatever `date` is.
  ///
  /// - Parameters:
  ///   - date: Ignored.
  ///   - tolerance: Ignored.
  ///   - options: Always `nil`; the scheduler takes no options.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    action()
  }

  /// Runs `action` once, at once, on the calling thread, and returns a cancellable that does
  /// nothing.
  ///
  /// - Parameters:
  ///   - date: Ignored.
  ///   - interval: Ignored; the action does not repeat.
  ///   - tolerance: Ignored.
  ///   - options: Always `nil`; the scheduler takes no options.
  ///   - action: The closure to run.
  /// - Returns: A cancellable whose `cancel()` does nothing: `Subscriptions.empty`, as in
  ///   Combine (its description is `"Empty"`).
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    action()
    return Subscriptions.empty
  }
}
