public import StreamCore

/// Checks a publisher against the publisher contract, rule by rule.
///
/// ```swift
/// @Test func sequencePublisher_conforms() {
///   PublisherConformance(
///     elements: 3,
///     makePublisher: { [1, 2, 3].publisher },
///     makeLongPublisher: { Array(0..<100_000).publisher }
///   )
///   .run()
///   .expectAllPassed()
/// }
/// ```
///
/// Hand the kit a factory of fresh publishers; each rule subscribes its own probe subscriber to a
/// publisher the factory just made (two probes to one publisher for
/// ``ConformanceRule/independentSubscriptions``), drives demand and cancellation, and reports
/// any break of the contract it sees: a value beyond demand, a second subscription or
/// completion, anything after the completion or after `cancel()`, calls into the subscriber from
/// two threads at once, nested calls, or a subscriber still alive after it should have been
/// released. ``run(_:)`` returns a ``ConformanceReport``; rules whose inputs are missing (no
/// failing publisher, unknown element count) are skipped with a reason.
///
/// The publisher may deliver synchronously, inside `subscribe` and `request`, or later on other
/// threads. The kit waits for each expected event for at most `timeout`, and a rule that runs out
/// of time fails, naming what it waited for. Once a run has seen the publisher deliver on another
/// thread, rules that check that nothing more arrives also watch for `quietPeriod` before they
/// pass.
///
/// `elements` means: the publisher sends exactly that many values and then `.finished`. `nil`
/// means the count is unknown or infinite; the publisher must then send a value for each unit of
/// demand until it completes, if it ever does.
///
/// > Thread safety: `run(_:)` blocks the calling thread until every rule is done; call it from a
/// > test, not from a thread the publisher needs to deliver on. The factories are called on that
/// > thread. Several runs may go on at once on different threads.
public struct PublisherConformance<P: Publisher>: Sendable {
  /// How many values a publisher sends before it finishes, or `nil` if unknown or infinite.
  public let elements: Int?

  /// Whether two subscriptions to one publisher are independent; see
  /// ``ConformanceRule/independentSubscriptions``.
  public let independentSubscriptions: Bool

  /// How long a rule waits for an event it expects.
  public let timeout: Duration

  /// How long a rule watches for late events from a publisher that delivers asynchronously.
  public let quietPeriod: Duration

  let makePublisher: @Sendable () -> P
  let makeFailingPublisher: (@Sendable () -> P)?
  let makeLongPublisher: (@Sendable () -> P)?

  /// Creates a conformance check for the publishers `makePublisher` makes.
  ///
  /// ```swift
  /// let kit = PublisherConformance(
  ///   elements: 1,
  ///   makePublisher: { Result<Int, MyError>.Publisher(1) },
  ///   makeFailingPublisher: { Result<Int, MyError>.Publisher(.failure(MyError())) }
  /// )
  /// ```
  ///
  /// The three factories return the same type. When a failing or long variant has another type,
  /// erase both with `eraseToAnyPublisher()`.
  ///
  /// - Parameters:
  ///   - elements: How many values each publisher sends before `.finished`, or `nil` if the
  ///     count is unknown or infinite. Rules that need a known count skip when it is `nil`.
  ///   - independentSubscriptions: Whether each subscription to one publisher gets its own
  ///     sequence of values, so that cancelling one leaves the others alone. Pass `false` for a
  ///     publisher whose subscribers share one upstream; the kit then skips
  ///     ``ConformanceRule/independentSubscriptions``.
  ///   - timeout: How long to wait for each expected event; one second by default.
  ///   - quietPeriod: How long to watch for events that should not come, once the publisher has
  ///     been seen delivering on another thread; 20 milliseconds by default.
  ///   - makePublisher: Makes a fresh publisher; called once or more per rule.
  ///   - makeFailingPublisher: Makes a publisher that ends with `.failure`, for the rules about
  ///     failure; those rules skip if it is `nil`.
  ///   - makeLongPublisher: Makes a publisher of at least 100,000 values, for
  ///     ``ConformanceRule/requestFromReceiveDoesNotRecurse``. Without it the rule uses
  ///     `makePublisher` when `elements` is `nil` or at least 100,000, and skips otherwise.
  public init(
    elements: Int? = nil,
    independentSubscriptions: Bool = true,
    timeout: Duration = .seconds(1),
    quietPeriod: Duration = .milliseconds(20),
    makePublisher: @escaping @Sendable () -> P,
    makeFailingPublisher: (@Sendable () -> P)? = nil,
    makeLongPublisher: (@Sendable () -> P)? = nil
  ) {
    precondition(elements ?? 0 >= 0, "PublisherConformance: elements must not be negative")
    self.elements = elements
    self.independentSubscriptions = independentSubscriptions
    self.timeout = timeout
    self.quietPeriod = quietPeriod
    self.makePublisher = makePublisher
    self.makeFailingPublisher = makeFailingPublisher
    self.makeLongPublisher = makeLongPublisher
  }

  /// Runs `rules`, one after another, and reports the outcome of each.
  ///
  /// ```swift
  /// let report = kit.run([.demandOneAtATime, .cancelFromReceive])
  /// print(report)
  /// ```
  ///
  /// A rule passes, fails with a message saying what went wrong, or is skipped with the reason
  /// its inputs don't allow it. The run takes a few milliseconds per rule for a synchronous
  /// publisher; waiting for a timeout or a quiet period adds to that.
  ///
  /// - Parameter rules: The rules to check; every rule by default.
  /// - Returns: One result per rule, in the order given.
  public func run(_ rules: [ConformanceRule] = ConformanceRule.all) -> ConformanceReport {
    let runner = ConformanceRunner(self)
    return ConformanceReport(
      publisher: Self.stableName(of: P.self),
      results: rules.map { ConformanceResult(rule: $0, outcome: runner.outcome(of: $0)) }
    )
  }

  /// The type's qualified name without `Swift.` and without the `(unknown context at $…).` part
  /// that the runtime gives private and local types, whose address changes from run to run.
  static func stableName(of type: Any.Type) -> String {
    var name = String(reflecting: type)
    while let start = name.firstRange(of: "(unknown context at $"),
      let end = name[start.upperBound...].firstRange(of: ").")
    {
      name.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return name.replacing("Swift.", with: "")
  }
}
