public import Dispatch

/// Makes every dispatch queue a ``Scheduler``: actions run on the queue.
///
/// ```swift
/// let queue = DispatchQueue(label: "work")
/// queue.schedule { print("on the queue") }
/// queue.schedule(after: queue.now.advanced(by: .milliseconds(100))) { print("100 ms later") }
/// let timer = queue.schedule(after: queue.now, interval: .seconds(1)) { print("tick") }
/// timer.cancel()
/// ```
///
/// - `schedule(options:_:)` calls `async(group:qos:flags:execute:)` with the options.
/// - `schedule(after:tolerance:options:_:)` calls `asyncAfter(deadline:qos:flags:execute:)`;
///   `asyncAfter` takes neither a leeway nor a group, so `tolerance` and `options.group` are
///   not used.
/// - `schedule(after:interval:tolerance:options:_:)` runs the action from a `DispatchSourceTimer`
///   that targets the queue, with `tolerance` as its leeway. The returned ``AnyCancellable``
///   cancels the timer when it is cancelled or deinitialised, so keep it for as long as the timer
///   should run. A zero interval fires as often as the queue allows; a negative interval or
///   tolerance counts as zero.
///
/// A serial queue runs actions scheduled for it in the order they fall due; a concurrent queue
/// may run them at the same time.
///
/// > Thread safety: Every method may be called from any thread. Actions run on the queue.
extension DispatchQueue: Scheduler {
  /// The scheduler time type used by the dispatch queue: a `DispatchTime` on the uptime clock.
  ///
  /// ```swift
  /// let start = DispatchQueue.main.now
  /// let deadline = start.advanced(by: .milliseconds(250))
  /// start.distance(to: deadline)  // .milliseconds(250)
  /// ```
  ///
  /// `advanced(by:)` follows `DispatchTime` arithmetic: it saturates at
  /// `DispatchTime.distantFuture`, which it never leaves (an `Int.max` stride goes straight
  /// there), and does not go below the start of the clock. As in Combine, `distance(to:)` is
  /// `Int.max` nanoseconds (`.never`) when the distance doesn't fit an `Int`, in either
  /// direction. The value encodes as `dispatchTime.uptimeNanoseconds`, a single `UInt64`.
  ///
  /// > Thread safety: A value type; use it from any thread.
  public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
    /// The dispatch time represented by this type.
    public var dispatchTime: DispatchTime

    /// Creates a dispatch queue time type instance.
    ///
    /// - Parameter time: The dispatch time to represent.
    public init(_ time: DispatchTime) {
      dispatchTime = time
    }

    /// Creates a dispatch queue time type instance from the uptime nanoseconds it was encoded as.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: The decoder's error if it holds no `UInt64` single value.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      self.init(DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self)))
    }

    /// Encodes `dispatchTime.uptimeNanoseconds` as a single value.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: The encoder's error if it cannot encode the value.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(dispatchTime.uptimeNanoseconds)
    }

    /// Returns the distance to another dispatch queue time, saturating at `Int.max`
    /// nanoseconds.
    ///
    /// - Parameter other: Another dispatch queue time.
    /// - Returns: The time interval between this time and the provided time.
    public func distance(to other: SchedulerTimeType) -> Stride {
      let start = dispatchTime.uptimeNanoseconds
      let end = other.dispatchTime.uptimeNanoseconds
      let span = end >= start ? end - start : start - end
      // Combine's distance is `.never` (`Int.max`) beyond `Int.max` in either direction.
      guard let nanoseconds = Int(exactly: span) else { return .nanoseconds(.max) }
      return .nanoseconds(end >= start ? nanoseconds : -nanoseconds)
    }

    /// Returns a dispatch queue scheduler time calculated by advancing this instance's time by
    /// the given interval, with `DispatchTime` arithmetic.
    ///
    /// - Parameter n: A time interval to advance.
    /// - Returns: A dispatch queue time advanced by the given interval from this instance's time.
    public func advanced(by n: Stride) -> SchedulerTimeType {
      n.magnitude == .max
        ? SchedulerTimeType(.distantFuture) : SchedulerTimeType(dispatchTime + n.timeInterval)
    }

    /// Orders times by their dispatch time.
    public static func < (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
      lhs.dispatchTime < rhs.dispatchTime
    }

    /// Two times are equal when their dispatch times are.
    public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
      lhs.dispatchTime == rhs.dispatchTime
    }

    /// Hashes the dispatch time's uptime nanoseconds.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(dispatchTime.uptimeNanoseconds)
    }

    /// A time interval for a dispatch queue, stored in nanoseconds.
    ///
    /// ```swift
    /// let a: DispatchQueue.SchedulerTimeType.Stride = 1.5  // 1.5 s
    /// let b = DispatchQueue.SchedulerTimeType.Stride.milliseconds(500)
    /// (a + b).magnitude  // 2_000_000_000
    /// b * 3  // 1.5 s: 3 is a literal, so 3 seconds
    /// ```
    ///
    /// As in Combine, integer and float literals and `init?(exactly:)` count seconds.
    /// Conversions saturate at `Int.min` and `Int.max` nanoseconds; `seconds(_: Double)` and float
    /// literals round to the nearest nanosecond. `DispatchTimeInterval.never` is `Int.max`
    /// nanoseconds; ``timeInterval`` is always `.nanoseconds`, as in Combine. It encodes as
    /// Combine's does, `{"_nanoseconds": N}`. Addition and
    /// subtraction are `Int` arithmetic on nanoseconds and trap on overflow. Multiplication treats
    /// both strides as seconds, consistently with literals, so `.milliseconds(500) * 3` is 1.5
    /// seconds; it rounds toward zero and traps on overflow.
    ///
    /// > Thread safety: A value type; use it from any thread.
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
      ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, Hashable, Codable, Sendable
    {
      /// The type used for float literals, which count seconds.
      public typealias FloatLiteralType = Double

      /// The type used for integer literals, which count seconds.
      public typealias IntegerLiteralType = Int

      /// The type of ``magnitude``.
      public typealias Magnitude = Int

      /// The value of this time interval in nanoseconds.
      ///
      /// Unlike `Int.magnitude` this keeps the sign, as in Combine: a negative interval has a
      /// negative magnitude.
      public var magnitude: Int

      /// A `DispatchTimeInterval` created with the value of this type in nanoseconds (even
      /// `Int.max`, as in Combine).
      public var timeInterval: DispatchTimeInterval {
        .nanoseconds(magnitude)
      }

      /// Encoded under Combine's key, `{"_nanoseconds": N}`.
      private enum CodingKeys: String, CodingKey {
        case magnitude = "_nanoseconds"
      }

      private init(nanoseconds: Int) {
        magnitude = nanoseconds
      }

      /// Creates a dispatch queue time interval from a dispatch time interval.
      ///
      /// - Parameter timeInterval: A dispatch time interval; `.never` becomes `Int.max`
      ///   nanoseconds and values that overflow saturate.
      public init(_ timeInterval: DispatchTimeInterval) {
        switch timeInterval {
        case .seconds(let s): magnitude = Self.saturating(s, times: 1_000_000_000)
        case .milliseconds(let ms): magnitude = Self.saturating(ms, times: 1_000_000)
        case .microseconds(let us): magnitude = Self.saturating(us, times: 1_000)
        case .nanoseconds(let ns): magnitude = ns
        case .never: magnitude = .max
        }
      }

      /// Creates a dispatch queue time interval from an integer literal, in seconds.
      ///
      /// - Parameter value: The number of seconds.
      public init(integerLiteral value: Int) {
        self.init(.seconds(value))
      }

      /// Creates a dispatch queue time interval from a float literal, in seconds.
      ///
      /// - Parameter value: The number of seconds.
      public init(floatLiteral value: Double) {
        self.init(nanoseconds: Self.nanoseconds(inSeconds: value))
      }

      /// Creates a dispatch queue time interval of `source` seconds, if it fits.
      ///
      /// - Parameter source: The number of seconds.
      public init?<T: BinaryInteger>(exactly source: T) {
        guard let seconds = Int(exactly: source) else { return nil }
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        self.init(nanoseconds: nanoseconds)
      }

      /// Orders intervals by length.
      public static func < (lhs: Stride, rhs: Stride) -> Bool {
        lhs.magnitude < rhs.magnitude
      }

      /// Adds two intervals.
      public static func + (lhs: Stride, rhs: Stride) -> Stride {
        Stride(nanoseconds: lhs.magnitude + rhs.magnitude)
      }

      /// Subtracts one interval from another.
      public static func - (lhs: Stride, rhs: Stride) -> Stride {
        Stride(nanoseconds: lhs.magnitude - rhs.magnitude)
      }

      /// Multiplies two intervals as numbers of seconds: `.seconds(2) * 3` is six seconds.
      public static func * (lhs: Stride, rhs: Stride) -> Stride {
        let product = lhs.magnitude.multipliedFullWidth(by: rhs.magnitude)
        let (quotient, _) = 1_000_000_000.dividingFullWidth(product)
        return Stride(nanoseconds: quotient)
      }

      /// Adds an interval to this one.
      public static func += (lhs: inout Stride, rhs: Stride) {
        lhs = lhs + rhs
      }

      /// Subtracts an interval from this one.
      public static func -= (lhs: inout Stride, rhs: Stride) {
        lhs = lhs - rhs
      }

      /// Multiplies this interval by another, as numbers of seconds.
      public static func *= (lhs: inout Stride, rhs: Stride) {
        lhs = lhs * rhs
      }

      /// Converts the specified number of seconds into an instance of this scheduler time type.
      public static func seconds(_ s: Int) -> Stride {
        Stride(.seconds(s))
      }

      /// Converts the specified number of seconds, as a floating-point value, into an instance of
      /// this scheduler time type, rounding to the nearest nanosecond.
      public static func seconds(_ s: Double) -> Stride {
        Stride(nanoseconds: nanoseconds(inSeconds: s))
      }

      /// Converts the specified number of milliseconds into an instance of this scheduler time
      /// type.
      public static func milliseconds(_ ms: Int) -> Stride {
        Stride(.milliseconds(ms))
      }

      /// Converts the specified number of microseconds into an instance of this scheduler time
      /// type.
      public static func microseconds(_ us: Int) -> Stride {
        Stride(.microseconds(us))
      }

      /// Converts the specified number of nanoseconds into an instance of this scheduler time
      /// type.
      public static func nanoseconds(_ ns: Int) -> Stride {
        Stride(nanoseconds: ns)
      }

      private static func saturating(_ value: Int, times factor: Int) -> Int {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard overflow else { return product }
        return value < 0 ? .min : .max
      }

      private static func nanoseconds(inSeconds seconds: Double) -> Int {
        precondition(!seconds.isNaN, "NaN is not a number of seconds")
        let nanoseconds = (seconds * 1_000_000_000).rounded()
        // `Double(Int.max)` is 2^63, one more than `Int.max`; `Double(Int.min)` is exact.
        if nanoseconds >= Double(Int.max) { return .max }
        if nanoseconds <= Double(Int.min) { return .min }
        return Int(nanoseconds)
      }
    }
  }

  /// Options that affect the operation of the dispatch queue scheduler.
  ///
  /// ```swift
  /// let options = DispatchQueue.SchedulerOptions(qos: .userInitiated, flags: .barrier)
  /// queue.schedule(options: options) { print("barrier") }
  /// ```
  ///
  /// `qos` and `flags` apply to every kind of scheduling; `group` only to
  /// `schedule(options:_:)`, which is the only call whose `async` takes a group.
  ///
  /// > Thread safety: A value type; use it from any thread.
  // Sendable: `DispatchWorkItemFlags` is an `OptionSet` over an integer, a plain value that
  // corelibs Dispatch does not mark `Sendable`; `DispatchQoS` and `DispatchGroup` are `Sendable`.
  public struct SchedulerOptions: @unchecked Sendable {
    /// The dispatch queue quality of service.
    public var qos: DispatchQoS

    /// The dispatch queue work item flags.
    public var flags: DispatchWorkItemFlags

    /// The dispatch group, if any, that should be used for performing actions.
    public var group: DispatchGroup?

    /// Creates options for the dispatch queue scheduler.
    ///
    /// - Parameters:
    ///   - qos: The quality of service of the work.
    ///   - flags: The work item flags.
    ///   - group: A group that `schedule(options:_:)` enters for each action.
    public init(
      qos: DispatchQoS = .unspecified,
      flags: DispatchWorkItemFlags = [],
      group: DispatchGroup? = nil
    ) {
      self.qos = qos
      self.flags = flags
      self.group = group
    }
  }

  /// The current time: `DispatchTime.now()`.
  public var now: SchedulerTimeType {
    SchedulerTimeType(DispatchTime.now())
  }

  /// Zero nanoseconds.
  public var minimumTolerance: SchedulerTimeType.Stride {
    .nanoseconds(0)
  }

  /// Runs `action` asynchronously on the queue, with `async(group:qos:flags:execute:)`.
  ///
  /// ```swift
  /// let queue = DispatchQueue(label: "work")
  /// queue.schedule(options: nil) { print("on the queue") }
  /// ```
  ///
  /// > Thread safety: May be called from any thread; `action` runs on the queue.
  ///
  /// - Parameters:
  ///   - options: The quality of service, flags and group, or `nil` for the defaults.
  ///   - action: The closure to run.
  public func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    let options = options ?? SchedulerOptions()
    async(group: options.group, qos: options.qos, flags: options.flags, execute: action)
  }

  /// Runs `action` on the queue once `date` has passed, with
  /// `asyncAfter(deadline:qos:flags:execute:)`.
  ///
  /// ```swift
  /// let queue = DispatchQueue(label: "work")
  /// queue.schedule(after: queue.now.advanced(by: .milliseconds(100)), tolerance: .zero,
  ///   options: nil) { print("100 ms later") }
  /// ```
  ///
  /// > Thread safety: May be called from any thread; `action` runs on the queue.
  ///
  /// - Parameters:
  ///   - date: The deadline.
  ///   - tolerance: Not used: `asyncAfter` takes no leeway.
  ///   - options: The quality of service and flags, or `nil` for the defaults; the group is
  ///     not used.
  ///   - action: The closure to run.
  public func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    let options = options ?? SchedulerOptions()
    asyncAfter(deadline: date.dispatchTime, qos: options.qos, flags: options.flags, execute: action)
  }

  /// Runs `action` on the queue from a `DispatchSourceTimer`, first at `date` and then every
  /// `interval`, until the returned cancellable is cancelled or deinitialised.
  ///
  /// ```swift
  /// let queue = DispatchQueue(label: "ticks")
  /// let timer = queue.schedule(after: queue.now, interval: .seconds(1), tolerance: .zero,
  ///   options: nil) { print("tick") }
  /// timer.cancel()
  /// ```
  ///
  /// > Thread safety: May be called, and the timer cancelled, from any thread; `action` runs on
  /// > the queue, one call at a time on a serial queue.
  ///
  /// - Parameters:
  ///   - date: The first deadline.
  ///   - interval: The time between deadlines; zero fires as often as possible, negative counts
  ///     as zero.
  ///   - tolerance: The timer's leeway; negative counts as zero.
  ///   - options: The quality of service and flags of the event handler, or `nil` for the
  ///     defaults; the group is not used.
  ///   - action: The closure to run repeatedly.
  /// - Returns: An ``AnyCancellable`` that cancels the timer when cancelled or deinitialised.
  public func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    let options = options ?? SchedulerOptions()
    let timer = DispatchSource.makeTimerSource(queue: self)
    timer.setEventHandler(qos: options.qos, flags: options.flags, handler: action)
    timer.schedule(
      deadline: date.dispatchTime,
      repeating: max(interval, .nanoseconds(0)).timeInterval,
      leeway: max(tolerance, .nanoseconds(0)).timeInterval
    )
    timer.resume()
    let box = TimerBox(timer: timer)
    return AnyCancellable { box.timer.cancel() }
  }
}

// Sendable: a dispatch source may be cancelled from any thread, but corelibs Dispatch does not
// mark `DispatchSourceTimer` `Sendable`. The box is only used to call `cancel()`.
private struct TimerBox: @unchecked Sendable {
  let timer: any DispatchSourceTimer
}
