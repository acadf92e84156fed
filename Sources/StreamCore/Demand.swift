extension Subscribers {
  /// A requested number of items, sent to a publisher from a subscriber through the
  /// subscription.
  ///
  /// ```swift
  /// subscription.request(.max(3))
  /// var demand = Subscribers.Demand.max(2) + 1     // .max(3)
  /// demand -= .max(5)                               // .none: demand never goes negative
  /// print(Subscribers.Demand.unlimited > 1_000)     // true
  /// ```
  ///
  /// Adding to ``unlimited``, or any sum or product that overflows `Int`, gives ``unlimited``.
  /// Subtracting from ``unlimited`` leaves it ``unlimited``; subtracting ``unlimited`` from a
  /// finite demand, or more than it holds, gives ``none``. ``max(_:)`` with a negative value,
  /// and any operation whose result would be a negative demand from adding or multiplying a
  /// negative `Int`, trap with a message.
  ///
  /// > Thread safety: A value type.
  public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible,
    Sendable
  {
    /// `0...Int.max` for finite demand; `unlimitedRawValue` for unlimited.
    @usableFromInline
    let rawValue: UInt

    @usableFromInline
    static var unlimitedRawValue: UInt { UInt(Int.max) + 1 }

    @inlinable
    init(rawValue: UInt) {
      self.rawValue = rawValue
    }

    /// A request for as many values as the publisher can produce.
    // Computed rather than `static let`, so that reading it needs no lazy-initialisation check.
    @inlinable
    public static var unlimited: Demand { Demand(rawValue: unlimitedRawValue) }

    /// A request for no elements from the publisher.
    ///
    /// This is equivalent to `Demand.max(0)`. Requesting it from a subscription traps.
    @inlinable
    public static var none: Demand { Demand(rawValue: 0) }

    /// Creates a demand for the given maximum number of elements.
    ///
    /// - Parameter value: The maximum number of elements; must not be negative.
    /// - Returns: A demand for at most `value` elements.
    @inlinable
    public static func max(_ value: Int) -> Demand {
      precondition(value >= 0, "Subscribers.Demand.max(\(value)): demand must not be negative")
      return Demand(rawValue: UInt(value))
    }

    /// The number of requested values, or `nil` if unlimited.
    @inlinable
    public var max: Int? {
      rawValue == Demand.unlimitedRawValue ? nil : Int(rawValue)
    }

    /// `"unlimited"` or `"max(n)"`.
    public var description: String {
      if let max { "max(\(max))" } else { "unlimited" }
    }

    /// Combines two demands; unlimited if either is, or if the sum overflows.
    @inlinable
    public static func + (lhs: Demand, rhs: Demand) -> Demand {
      let (sum, overflow) = lhs.rawValue.addingReportingOverflow(rhs.rawValue)
      return overflow ? .unlimited : Demand(rawValue: Swift.min(sum, unlimitedRawValue))
    }

    /// Adds a demand to this one.
    @inlinable
    public static func += (lhs: inout Demand, rhs: Demand) {
      lhs = lhs + rhs
    }

    /// Adds a number of items; unlimited stays unlimited and an overflow becomes unlimited.
    ///
    /// A negative `rhs` whose magnitude exceeds the demand traps.
    @inlinable
    public static func + (lhs: Demand, rhs: Int) -> Demand {
      guard let finite = lhs.max else { return .unlimited }
      let (sum, overflow) = finite.addingReportingOverflow(rhs)
      if overflow { return .unlimited }
      precondition(sum >= 0, "Subscribers.Demand: \(lhs) + \(rhs) would be a negative demand")
      return Demand(rawValue: UInt(sum))
    }

    /// Adds a number of items to this demand.
    @inlinable
    public static func += (lhs: inout Demand, rhs: Int) {
      lhs = lhs + rhs
    }

    /// Multiplies a demand; unlimited stays unlimited and an overflow becomes unlimited.
    ///
    /// A negative `rhs` traps.
    @inlinable
    public static func * (lhs: Demand, rhs: Int) -> Demand {
      precondition(rhs >= 0, "Subscribers.Demand: \(lhs) * \(rhs) would be a negative demand")
      guard let finite = lhs.max else { return .unlimited }
      let (product, overflow) = finite.multipliedReportingOverflow(by: rhs)
      return overflow ? .unlimited : Demand(rawValue: UInt(product))
    }

    /// Multiplies this demand.
    @inlinable
    public static func *= (lhs: inout Demand, rhs: Int) {
      lhs = lhs * rhs
    }

    /// Subtracts one demand from another; never negative.
    ///
    /// Subtracting from unlimited gives unlimited; subtracting unlimited from a finite demand
    /// gives none.
    @inlinable
    public static func - (lhs: Demand, rhs: Demand) -> Demand {
      if lhs.rawValue == unlimitedRawValue { return .unlimited }
      if rhs.rawValue == unlimitedRawValue { return .none }
      return lhs.rawValue > rhs.rawValue ? Demand(rawValue: lhs.rawValue - rhs.rawValue) : .none
    }

    /// Subtracts a demand from this one.
    @inlinable
    public static func -= (lhs: inout Demand, rhs: Demand) {
      lhs = lhs - rhs
    }

    /// Subtracts a number of items; never negative, and unlimited stays unlimited.
    ///
    /// A negative `rhs` adds; a sum that overflows `Int` is `.none`, as in Combine (where the sum
    /// wraps to a negative count).
    @inlinable
    public static func - (lhs: Demand, rhs: Int) -> Demand {
      guard let finite = lhs.max else { return .unlimited }
      let (difference, overflow) = finite.subtractingReportingOverflow(rhs)
      if overflow { return .none }  // only possible when rhs is negative
      return difference > 0 ? Demand(rawValue: UInt(difference)) : .none
    }

    /// Subtracts a number of items from this demand.
    @inlinable
    public static func -= (lhs: inout Demand, rhs: Int) {
      lhs = lhs - rhs
    }

    /// Orders demands; unlimited is greater than any finite demand.
    @inlinable
    public static func < (lhs: Demand, rhs: Demand) -> Bool {
      lhs.rawValue < rhs.rawValue
    }

    /// Whether a demand is greater than a number of items; unlimited always is.
    @inlinable
    public static func > (lhs: Demand, rhs: Int) -> Bool {
      guard let finite = lhs.max else { return true }
      return finite > rhs
    }

    /// Whether a demand is at least a number of items; unlimited always is.
    @inlinable
    public static func >= (lhs: Demand, rhs: Int) -> Bool {
      guard let finite = lhs.max else { return true }
      return finite >= rhs
    }

    /// Whether a number of items is greater than a demand; never for unlimited.
    @inlinable
    public static func > (lhs: Int, rhs: Demand) -> Bool {
      guard let finite = rhs.max else { return false }
      return lhs > finite
    }

    /// Whether a number of items is at least a demand; never for unlimited.
    @inlinable
    public static func >= (lhs: Int, rhs: Demand) -> Bool {
      guard let finite = rhs.max else { return false }
      return lhs >= finite
    }

    /// Whether a demand is less than a number of items; never for unlimited.
    @inlinable
    public static func < (lhs: Demand, rhs: Int) -> Bool {
      guard let finite = lhs.max else { return false }
      return finite < rhs
    }

    /// Whether a number of items is less than a demand; unlimited always is.
    @inlinable
    public static func < (lhs: Int, rhs: Demand) -> Bool {
      guard let finite = rhs.max else { return true }
      return lhs < finite
    }

    /// Whether a demand is at most a number of items; never for unlimited.
    @inlinable
    public static func <= (lhs: Demand, rhs: Int) -> Bool {
      guard let finite = lhs.max else { return false }
      return finite <= rhs
    }

    /// Whether a number of items is at most a demand; unlimited always is.
    @inlinable
    public static func <= (lhs: Int, rhs: Demand) -> Bool {
      guard let finite = rhs.max else { return true }
      return lhs <= finite
    }

    /// Whether a demand equals a number of items; unlimited never does.
    @inlinable
    public static func == (lhs: Demand, rhs: Int) -> Bool {
      lhs.max == rhs
    }

    /// Whether a demand differs from a number of items; unlimited always does.
    @inlinable
    public static func != (lhs: Demand, rhs: Int) -> Bool {
      lhs.max != rhs
    }

    /// Whether a number of items equals a demand; never for unlimited.
    @inlinable
    public static func == (lhs: Int, rhs: Demand) -> Bool {
      rhs.max == lhs
    }

    /// Whether a number of items differs from a demand; always for unlimited.
    @inlinable
    public static func != (lhs: Int, rhs: Demand) -> Bool {
      rhs.max != lhs
    }

    /// Decodes a demand encoded as a single unsigned integer.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      let raw = try container.decode(UInt.self)
      // Anything above the largest finite demand is unlimited, as Combine decodes it.
      self.init(rawValue: Swift.min(raw, Demand.unlimitedRawValue))
    }

    /// Encodes the demand as a single unsigned integer.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(rawValue)
    }
  }
}

extension Subscribers.Demand {
  /// Traps unless the demand is greater than zero, as `request(_:)` requires.
  @inlinable
  package func assertPositive(
    file: StaticString = #fileID,
    line: UInt = #line
  ) {
    precondition(
      rawValue > 0,
      "request(.none): a subscriber must request a demand greater than zero",
      file: file,
      line: line
    )
  }
}
