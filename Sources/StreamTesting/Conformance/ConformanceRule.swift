/// One rule of the publisher contract that ``PublisherConformance`` can check.
///
/// ```swift
/// let report = PublisherConformance(elements: 3) { [1, 2, 3].publisher }
///   .run([.demandOneAtATime, .cancelFromReceive])
/// ```
///
/// The rules adapt the Reactive Streams specification to StreamCore's contract (see
/// `Docs/StreamCore.md`). Identifiers read `SC-<group>.<number>`: group 1 is demand, 2 the order
/// of signals, 3 cancellation, 4 resources and 5 independent subscriptions. ``all`` lists every
/// rule in the order ``PublisherConformance/run(_:)`` runs them.
///
/// `request(.none)` is left out on purpose: some publishers trap on it, as Combine's do, so it
/// can't be checked in the process that runs the kit.
///
/// > Thread safety: A value type; use it from any thread.
public struct ConformanceRule: Identifiable, Hashable, Sendable, CustomStringConvertible {
  /// The rule's identifier, such as `"SC-1.01"`.
  public let id: String

  /// What the rule requires of a publisher, in one sentence.
  public let statement: String

  /// `"SC-1.01 <statement>"`.
  public var description: String { "\(id) \(statement)" }

  let check: Check

  enum Check: Sendable {
    case demandOneAtATime
    case demandFromReceive
    case demandUpFront
    case demandUnlimited
    case requestFromReceiveDoesNotRecurse
    case subscriptionFirstAndOnce
    case atMostOneCompletion
    case finiteElementsThenFinished
    case failureExactlyOnce
    case cancelFromReceive
    case cancelFromOutside
    case cancelIsIdempotent
    case requestAfterCancel
    case concurrentRequests
    case concurrentRequestAndCancel
    case releasedAfterCancel
    case releasedAfterCompletion
    case independentSubscriptions
  }

  init(_ id: String, _ check: Check, _ statement: String) {
    self.id = id
    self.check = check
    self.statement = statement
  }

  /// Rules are equal when their identifiers are.
  public static func == (lhs: ConformanceRule, rhs: ConformanceRule) -> Bool {
    lhs.id == rhs.id
  }

  /// Hashes the identifier.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
  }
}

extension ConformanceRule {
  /// Every rule, in the order they run.
  public static let all: [ConformanceRule] = [
    demandOneAtATime, demandFromReceive, demandUpFront, demandUnlimited,
    requestFromReceiveDoesNotRecurse, subscriptionFirstAndOnce, atMostOneCompletion,
    finiteElementsThenFinished, failureExactlyOnce, cancelFromReceive, cancelFromOutside,
    cancelIsIdempotent, requestAfterCancel, concurrentRequests, concurrentRequestAndCancel,
    releasedAfterCancel, releasedAfterCompletion, independentSubscriptions,
  ]

  /// The rule with this identifier, if there is one.
  ///
  /// ```swift
  /// ConformanceRule.named("SC-3.01") == .cancelFromReceive  // true
  /// ```
  ///
  /// - Parameter id: An identifier such as `"SC-1.01"`.
  /// - Returns: The rule, or `nil` if no rule has that identifier.
  public static func named(_ id: String) -> ConformanceRule? {
    all.first { $0.id == id }
  }

  // MARK: Demand

  /// SC-1.01: requesting `.max(1)` at a time never yields more values than requested.
  public static let demandOneAtATime = ConformanceRule(
    "SC-1.01",
    .demandOneAtATime,
    "Requested `.max(1)` at a time, it sends one value per request and never more."
  )

  /// SC-1.02: demand returned from `receive(_:)` adds to the outstanding demand.
  public static let demandFromReceive = ConformanceRule(
    "SC-1.02",
    .demandFromReceive,
    "Demand returned from `receive(_:)` is added to the outstanding demand, and never exceeded."
  )

  /// SC-1.03: a single `request(.max(n))` yields at most `n` values.
  public static let demandUpFront = ConformanceRule(
    "SC-1.03",
    .demandUpFront,
    "After one `request(.max(3))` it sends at most 3 values."
  )

  /// SC-1.04: `.unlimited` demand needs no further requests.
  public static let demandUnlimited = ConformanceRule(
    "SC-1.04",
    .demandUnlimited,
    "Under `.unlimited` demand it keeps sending without further requests."
  )

  /// SC-1.05: `request(_:)` from inside `receive(_:)` doesn't recurse.
  public static let requestFromReceiveDoesNotRecurse = ConformanceRule(
    "SC-1.05",
    .requestFromReceiveDoesNotRecurse,
    "`request(.max(1))` inside `receive(_:)` never nests calls, even over 100,000 values."
  )

  // MARK: Signals

  /// SC-2.01: `receive(subscription:)` comes first, exactly once.
  public static let subscriptionFirstAndOnce = ConformanceRule(
    "SC-2.01",
    .subscriptionFirstAndOnce,
    "It calls `receive(subscription:)` exactly once, before any value or completion."
  )

  /// SC-2.02: at most one completion, and nothing after it.
  public static let atMostOneCompletion = ConformanceRule(
    "SC-2.02",
    .atMostOneCompletion,
    "At most one completion, and nothing after it, even if requested or cancelled again."
  )

  /// SC-2.03: a publisher of `n` elements sends exactly `n` values, then `.finished`.
  public static let finiteElementsThenFinished = ConformanceRule(
    "SC-2.03",
    .finiteElementsThenFinished,
    "With `elements: n` and `.unlimited` demand: exactly n values, then `.finished`."
  )

  /// SC-2.04: the failing publisher sends `.failure` exactly once.
  public static let failureExactlyOnce = ConformanceRule(
    "SC-2.04",
    .failureExactlyOnce,
    "The failing publisher sends `.failure` exactly once."
  )

  // MARK: Cancellation

  /// SC-3.01: nothing after `cancel()` from inside `receive(_:)`.
  public static let cancelFromReceive = ConformanceRule(
    "SC-3.01",
    .cancelFromReceive,
    "After `cancel()` inside `receive(_:)`, nothing more arrives, despite outstanding demand."
  )

  /// SC-3.02: nothing after `cancel()` from outside.
  public static let cancelFromOutside = ConformanceRule(
    "SC-3.02",
    .cancelFromOutside,
    "After `cancel()` from outside, while no call is under way, it sends nothing more."
  )

  /// SC-3.03: `cancel()` is idempotent.
  public static let cancelIsIdempotent = ConformanceRule(
    "SC-3.03",
    .cancelIsIdempotent,
    "`cancel()` may be called again: later calls do nothing."
  )

  /// SC-3.04: `request(_:)` after `cancel()` is a no-op.
  public static let requestAfterCancel = ConformanceRule(
    "SC-3.04",
    .requestAfterCancel,
    "`request(_:)` after `cancel()` does nothing."
  )

  /// SC-3.05: concurrent `request(_:)` calls add up exactly.
  public static let concurrentRequests = ConformanceRule(
    "SC-3.05",
    .concurrentRequests,
    "Concurrent `request(_:)` calls add up exactly; the subscriber is never called concurrently."
  )

  /// SC-3.06: concurrent `request(_:)` and `cancel()` are safe.
  public static let concurrentRequestAndCancel = ConformanceRule(
    "SC-3.06",
    .concurrentRequestAndCancel,
    "Concurrent `request(_:)` and `cancel()`: nothing beyond demand, nothing once all returned."
  )

  // MARK: Resources

  /// SC-4.01: the subscriber, and the subscription, are released after `cancel()`.
  public static let releasedAfterCancel = ConformanceRule(
    "SC-4.01",
    .releasedAfterCancel,
    "After `cancel()`, the subscriber and the subscription are released."
  )

  /// SC-4.02: the subscriber, and the subscription, are released after the completion.
  public static let releasedAfterCompletion = ConformanceRule(
    "SC-4.02",
    .releasedAfterCompletion,
    "After the completion, the subscriber and the subscription are released."
  )

  // MARK: Independence

  /// SC-5.01: two subscriptions to one publisher are independent.
  public static let independentSubscriptions = ConformanceRule(
    "SC-5.01",
    .independentSubscriptions,
    "Two subscriptions to one publisher are independent: cancelling one leaves the other alone."
  )
}
