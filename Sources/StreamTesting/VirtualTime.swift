public import StreamCore

/// An instant in a test scheduler's virtual time, counted in ticks (nanoseconds).
///
/// ```swift
/// let start = VirtualTime(0)
/// let later = start.advanced(by: .milliseconds(5))
/// later.ticks  // 5_000_000
/// start.distance(to: later)  // 5_000_000 ticks
/// ```
///
/// `advanced(by:)` and `distance(to:)` saturate at `Int.min` and `Int.max` ticks. A time encodes
/// as its tick count, a single `Int`.
///
/// > Thread safety: A value type; use it from any thread.
public struct VirtualTime: Strideable, Hashable, Codable, Sendable {

  /// The number of ticks (nanoseconds) since the scheduler's origin.
  public var ticks: Int

  /// Creates the instant `ticks` ticks after the scheduler's origin.
  ///
  /// - Parameter ticks: The number of ticks (nanoseconds) since the origin.
  public init(_ ticks: Int) {
    self.ticks = ticks
  }

  /// Decodes a time from a single `Int` tick count.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: The decoder's error if it holds no `Int` single value.
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(Int.self))
  }

  /// Encodes the tick count as a single `Int`.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: The encoder's error if it cannot encode the value.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(ticks)
  }

  /// Returns the number of ticks from this instant to `other`, saturating.
  ///
  /// - Parameter other: Another instant.
  /// - Returns: The stride from this instant to `other`.
  public func distance(to other: VirtualTime) -> Stride {
    Stride(Self.saturatingAdd(other.ticks, negating: ticks))
  }

  /// Returns the instant `n` after this one, saturating.
  ///
  /// - Parameter n: The stride to advance by.
  /// - Returns: The later (or, for a negative stride, earlier) instant.
  public func advanced(by n: Stride) -> VirtualTime {
    let (sum, overflow) = ticks.addingReportingOverflow(n.magnitude)
    guard overflow else { return VirtualTime(sum) }
    return VirtualTime(n.magnitude > 0 ? .max : .min)
  }

  /// Orders instants by their tick count.
  public static func < (lhs: VirtualTime, rhs: VirtualTime) -> Bool {
    lhs.ticks < rhs.ticks
  }

  private static func saturatingAdd(_ value: Int, negating other: Int) -> Int {
    let (difference, overflow) = value.subtractingReportingOverflow(other)
    guard overflow else { return difference }
    return other > 0 ? .min : .max
  }

  /// A distance in a test scheduler's virtual time, counted in ticks (nanoseconds).
  ///
  /// ```swift
  /// let a: VirtualTime.Stride = 5  // 5 ticks, that is 5 nanoseconds
  /// let b = VirtualTime.Stride.microseconds(2)  // 2_000 ticks
  /// (a + b).magnitude  // 2_005
  /// VirtualTime.Stride.seconds(2) * 3  // 3 is a plain number, so six seconds
  /// ```
  ///
  /// Unlike `DispatchQueue`'s stride, whose literals count seconds, integer and float literals
  /// and `init?(exactly:)` count ticks, so a literal is a plain number and multiplying by it
  /// scales. Float literals and `seconds(_: Double)` round to the nearest tick; these and the
  /// other unit conversions saturate at `Int.min` and `Int.max` ticks. Arithmetic is `Int`
  /// arithmetic on ``magnitude`` and traps on overflow. A stride encodes as a single `Int`.
  ///
  /// > Thread safety: A value type; use it from any thread.
  public struct Stride: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, Comparable,
    SignedNumeric, Hashable, Codable, SchedulerTimeIntervalConvertible, Sendable
  {
    /// The type used for integer literals, which count ticks.
    public typealias IntegerLiteralType = Int

    /// The type used for float literals, which count ticks.
    public typealias FloatLiteralType = Double

    /// The type of ``magnitude``.
    public typealias Magnitude = Int

    /// The number of ticks (nanoseconds) in this stride.
    ///
    /// Unlike `Int.magnitude` this keeps the sign, as in Combine's strides.
    public var magnitude: Int

    /// Creates a stride of `ticks` ticks.
    ///
    /// - Parameter ticks: The number of ticks (nanoseconds).
    public init(_ ticks: Int) {
      magnitude = ticks
    }

    /// Creates a stride from an integer literal, in ticks.
    ///
    /// - Parameter value: The number of ticks.
    public init(integerLiteral value: Int) {
      self.init(value)
    }

    /// Creates a stride from a float literal, in ticks, rounded to the nearest tick.
    ///
    /// - Parameter value: The number of ticks.
    public init(floatLiteral value: Double) {
      self.init(Self.saturating(value))
    }

    /// Creates a stride of `source` ticks, if it fits in an `Int`.
    ///
    /// - Parameter source: The number of ticks.
    public init?<T: BinaryInteger>(exactly source: T) {
      guard let ticks = Int(exactly: source) else { return nil }
      self.init(ticks)
    }

    /// Decodes a stride from a single `Int` tick count.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: The decoder's error if it holds no `Int` single value.
    public init(from decoder: any Decoder) throws {
      self.init(try decoder.singleValueContainer().decode(Int.self))
    }

    /// Encodes the tick count as a single `Int`.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: The encoder's error if it cannot encode the value.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(magnitude)
    }

    /// Orders strides by length.
    public static func < (lhs: Stride, rhs: Stride) -> Bool {
      lhs.magnitude < rhs.magnitude
    }

    /// Adds two strides.
    public static func + (lhs: Stride, rhs: Stride) -> Stride {
      Stride(lhs.magnitude + rhs.magnitude)
    }

    /// Subtracts one stride from another.
    public static func - (lhs: Stride, rhs: Stride) -> Stride {
      Stride(lhs.magnitude - rhs.magnitude)
    }

    /// Multiplies two strides as numbers of ticks.
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

    /// Multiplies this stride by another, as numbers of ticks.
    public static func *= (lhs: inout Stride, rhs: Stride) {
      lhs = lhs * rhs
    }

    /// A stride of `s` seconds: `s * 1_000_000_000` ticks, saturating.
    public static func seconds(_ s: Int) -> Stride {
      Stride(saturating(s, times: 1_000_000_000))
    }

    /// A stride of `s` seconds, rounded to the nearest tick and saturating.
    public static func seconds(_ s: Double) -> Stride {
      Stride(saturating(s * 1_000_000_000))
    }

    /// A stride of `ms` milliseconds: `ms * 1_000_000` ticks, saturating.
    public static func milliseconds(_ ms: Int) -> Stride {
      Stride(saturating(ms, times: 1_000_000))
    }

    /// A stride of `us` microseconds: `us * 1_000` ticks, saturating.
    public static func microseconds(_ us: Int) -> Stride {
      Stride(saturating(us, times: 1_000))
    }

    /// A stride of `ns` nanoseconds, that is `ns` ticks.
    public static func nanoseconds(_ ns: Int) -> Stride {
      Stride(ns)
    }

    private static func saturating(_ value: Int, times factor: Int) -> Int {
      let (product, overflow) = value.multipliedReportingOverflow(by: factor)
      guard overflow else { return product }
      return value > 0 ? .max : .min
    }

    private static func saturating(_ ticks: Double) -> Int {
      let rounded = ticks.rounded()
      if rounded >= Double(Int.max) { return .max }
      if rounded <= Double(Int.min) { return .min }
      return Int(rounded)  // traps on NaN
    }
  }
}

/// The test scheduler that `TestScheduler()` makes: ``VirtualTime``, counted in nanosecond ticks,
/// and no options. Use it to name the type: `let scheduler: VirtualTimeScheduler`.
public typealias VirtualTimeScheduler = TestScheduler<VirtualTime, Never>
