import StreamCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

// Rules SC-1 (demand) and SC-2 (order of signals).
extension ConformanceRunner {
  /// How many values the demand rules take at most.
  private static var sampleSize: Int { 100 }

  /// How many values the recursion rule takes: 100,000, or the positive number in the
  /// environment variable `STREAMKIT_CONFORMANCE_LONG_RUN`. A publisher that nested a call per
  /// value would overflow a thread's stack long before 100,000 values (each level costs at least
  /// a few hundred bytes), and a longer run only makes the kit slower in debug builds.
  static var longRun: Int {
    if let text = getenv("STREAMKIT_CONFORMANCE_LONG_RUN"), let value = Int(String(cString: text)),
      value > 0
    {
      return value
    }
    return 100_000
  }

  // MARK: SC-1 Demand

  func demandOneAtATime() throws(RuleExit) {
    let probe = try subscribe(conformance.makePublisher())
    let rounds = elements.map { max(1, min($0, Self.sampleSize)) } ?? 5
    for round in 1...rounds {
      let before = probe.snapshot.values
      probe.request(.max(1))
      try waitFor(probe, "a value or a completion after request(.max(1)) number \(round)") {
        $0.values > before || $0.isCompleted
      }
      if probe.snapshot.isCompleted { break }
    }
    try settle(probe)
  }

  func demandFromReceive() throws(RuleExit) {
    let count = max(1, min(elements ?? 5, Self.sampleSize))
    let probe = try subscribe(
      conformance.makePublisher(),
      action: .returnDemand(.max(1), count: count - 1)
    )
    probe.request(.max(1))
    try waitFor(
      probe,
      "\(count) values (request(.max(1)), then .max(1) returned from each receive(_:)) "
        + "or a completion"
    ) { $0.values >= count || $0.isCompleted }
    try settle(probe)
  }

  func demandUpFront() throws(RuleExit) {
    let probe = try subscribe(conformance.makePublisher())
    probe.request(.max(3))
    let expected = min(3, elements ?? 3)
    try waitFor(probe, "\(expected) values or a completion after request(.max(3))") {
      $0.values >= expected || $0.isCompleted
    }
    try settle(probe)
  }

  func demandUnlimited() throws(RuleExit) {
    if let elements {
      let probe = try subscribe(conformance.makePublisher())
      probe.request(.unlimited)
      try waitFor(probe, "\(elements) values and a completion under .unlimited demand") {
        $0.isCompleted
      }
      try settle(probe)
    } else {
      // An infinite publisher would never return from `request(.unlimited)` on its own.
      let probe = try subscribe(conformance.makePublisher(), action: .cancelAt(10))
      probe.request(.unlimited)
      try waitFor(probe, "10 values or a completion under .unlimited demand") {
        $0.values >= 10 || $0.isCompleted
      }
      try settle(probe)
    }
  }

  func requestFromReceiveDoesNotRecurse() throws(RuleExit) {
    let limit = Self.longRun
    let make: @Sendable () -> P
    if let long = conformance.makeLongPublisher {
      make = long
    } else if elements ?? limit >= limit {
      make = conformance.makePublisher
    } else {
      throw .skipped(
        "needs makeLongPublisher (at least \(limit) values), "
          + "or elements of at least \(limit) or nil"
      )
    }
    let probe = try subscribe(make(), action: .requestInside(.max(1), count: limit - 1))
    probe.request(.max(1))
    var state = probe.snapshot
    if !state.isCompleted && state.values < limit {
      try waitFor(probe, "1,000 values taken one at a time", resettingOnProgress: true) {
        $0.values >= 1_000 || $0.isCompleted
      }
      state = probe.snapshot
      if state.asynchronousValues > 0 {
        probe.cancel()
        throw .skipped(
          "the publisher delivers on other threads, so request(_:) can't nest calls "
            + "(took \(state.values) values)"
        )
      }
      try waitFor(
        probe,
        "\(limit) values taken one at a time, or a completion",
        resettingOnProgress: true
      ) { $0.values >= limit || $0.isCompleted }
      state = probe.snapshot
    }
    if !state.isCompleted {
      probe.cancel()
    } else if state.values < limit {
      throw .skipped(
        "the publisher completed after \(state.values) values; the rule needs at least \(limit) "
          + "(pass makeLongPublisher)"
      )
    }
    try checkViolations(probe, probe.snapshot)
  }

  // MARK: SC-2 Signals

  func subscriptionFirstAndOnce() throws(RuleExit) {
    var sources: [(label: String, make: @Sendable () -> P)] = [("", conformance.makePublisher)]
    if let failing = conformance.makeFailingPublisher {
      sources.append(("failing publisher", failing))
    }
    for (label, make) in sources {
      let probe = try subscribe(make(), label: label)
      probe.request(.max(1))
      try waitFor(probe, "a value or a completion after request(.max(1))") {
        $0.values > 0 || $0.isCompleted
      }
      try settle(probe)
    }
  }

  func atMostOneCompletion() throws(RuleExit) {
    let sources = completingSources()
    guard !sources.isEmpty else {
      throw .skipped("needs elements or makeFailingPublisher: a publisher known to complete")
    }
    for (label, make) in sources {
      let probe = try subscribe(make(), label: label, keepsSubscription: true)
      probe.request(.unlimited)
      try waitFor(probe, "a completion under .unlimited demand") { $0.isCompleted }
      try awaitIdle(probe, after: "receive(completion:)")
      let subscription = probe.subscription
      probe.request(.max(1), via: subscription)
      probe.cancel(via: subscription)
      try settle(probe)
    }
  }

  func finiteElementsThenFinished() throws(RuleExit) {
    guard let elements else {
      throw .skipped("needs elements: how many values the publisher sends before .finished")
    }
    let probe = try subscribe(conformance.makePublisher())
    probe.request(.unlimited)
    try waitFor(probe, "\(elements) values and .finished under .unlimited demand") {
      $0.isCompleted
    }
    try settle(probe)
    let state = probe.snapshot
    guard state.values == elements, case .finished? = state.completion else {
      throw fail(probe, "expected \(elements) values, then .finished; received \(state.summary)")
    }
  }

  func failureExactlyOnce() throws(RuleExit) {
    guard let failing = conformance.makeFailingPublisher else {
      throw .skipped("needs makeFailingPublisher")
    }
    let probe = try subscribe(failing(), label: "failing publisher")
    probe.request(.unlimited)
    try waitFor(probe, "a .failure under .unlimited demand") { $0.isCompleted }
    try settle(probe)
    let state = probe.snapshot
    guard case .failure? = state.completion else {
      throw fail(probe, "expected a .failure; received \(state.summary)")
    }
  }
}
