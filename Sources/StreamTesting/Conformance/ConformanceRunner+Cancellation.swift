import Dispatch
import StreamCore

// Rules SC-3 (cancellation), SC-4 (resources) and SC-5 (independence).
extension ConformanceRunner {
  /// Threads and calls per thread for the concurrency rules.
  private static var hammer: (threads: Int, calls: Int) { (4, 50) }

  // MARK: SC-3 Cancellation

  func cancelFromReceive() throws(RuleExit) {
    if elements == 0 {
      throw .skipped("needs a publisher that sends a value (elements is 0)")
    }
    let probe = try subscribe(conformance.makePublisher(), action: .cancelAt(1))
    probe.request(.max(3))
    try waitFor(probe, "a first value after request(.max(3))") { $0.values > 0 || $0.isCompleted }
    if probe.snapshot.values == 0 {
      throw .skipped("the publisher completed without sending a value")
    }
    try settle(probe)
  }

  func cancelFromOutside() throws(RuleExit) {
    if let elements, elements < 2 {
      throw .skipped(
        "needs at least 2 elements: with fewer, the publisher may be completing as it is cancelled"
      )
    }
    let probe = try subscribe(conformance.makePublisher())
    probe.request(.max(1))
    try waitFor(probe, "a value after request(.max(1))") { $0.values > 0 || $0.isCompleted }
    if probe.snapshot.isCompleted {
      throw .skipped("the publisher completed before it could be cancelled")
    }
    try quiesce(probe, after: "receive(_:)")
    probe.cancel()
    try settle(probe)
  }

  func cancelIsIdempotent() throws(RuleExit) {
    // With fewer than 2 elements the publisher may be completing while the test cancels.
    let racesCompletion = elements.map { $0 < 2 } ?? false
    let probe = try subscribe(conformance.makePublisher(), strictCancel: !racesCompletion)
    let subscription = probe.subscription
    probe.request(.max(1))
    try waitFor(probe, "a value or a completion after request(.max(1))") {
      $0.values > 0 || $0.isCompleted
    }
    try quiesce(probe, after: "receive(_:)")
    for _ in 1...3 {
      probe.cancel(via: subscription)
    }
    try settle(probe)
  }

  func requestAfterCancel() throws(RuleExit) {
    let probe = try subscribe(conformance.makePublisher())
    try quiesce(probe, after: "receive(subscription:)")
    let subscription = probe.subscription
    probe.cancel(via: subscription)
    probe.request(.max(2), via: subscription)
    try settle(probe)
  }

  func concurrentRequests() throws(RuleExit) {
    let probe = try subscribe(conformance.makePublisher())
    let (threads, calls) = Self.hammer
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      for _ in 0..<calls {
        probe.request(.max(1))
      }
    }
    let total = threads * calls
    let expected = min(elements ?? total, total)
    try waitFor(
      probe,
      "\(expected) values (or a completion) after \(total) concurrent request(.max(1)) calls"
    ) { $0.values >= expected || $0.isCompleted }
    try settle(probe)
    let state = probe.snapshot
    if elements != nil && state.values < expected {
      throw fail(
        probe,
        "expected \(expected) values after \(total) concurrent request(.max(1)) calls; "
          + "received \(state.summary)"
      )
    }
  }

  func concurrentRequestAndCancel() throws(RuleExit) {
    let probe = try subscribe(conformance.makePublisher(), strictCancel: false)
    let subscription = probe.subscription
    let shared = SendableByContract(subscription)
    let (threads, calls) = Self.hammer
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for call in 0..<calls {
        probe.request(.max(1), via: shared.wrapped)
        if call == 10 * (thread + 1) {
          probe.cancel(via: shared.wrapped)
        }
      }
    }
    try quiesce(probe, after: "the racing request(_:) and cancel() calls")
    let mark = probe.snapshot.events
    probe.request(.max(1), via: subscription)
    try settle(probe)
    let state = probe.snapshot
    if state.events > mark {
      throw fail(
        probe,
        "\(state.events - mark) call(s) reached the subscriber after every cancel() had returned "
          + "and the subscriber was idle; received \(state.summary)"
      )
    }
  }

  // MARK: SC-4 Resources

  func releasedAfterCancel() throws(RuleExit) {
    let publisher = conformance.makePublisher()
    try withExtendedLifetime(publisher) { () throws(RuleExit) in
      let (released, subscription) = try cancelAndLetGo(publisher)
      try expectRelease(released, subscription, after: "cancel()")
    }
  }

  func releasedAfterCompletion() throws(RuleExit) {
    let sources = completingSources()
    guard !sources.isEmpty else {
      throw .skipped("needs elements or makeFailingPublisher: a publisher known to complete")
    }
    for (label, make) in sources {
      let publisher = make()
      try withExtendedLifetime(publisher) { () throws(RuleExit) in
        let (released, subscription) = try completeAndLetGo(publisher, label: label)
        let prefix = label.isEmpty ? "" : "\(label): "
        try expectRelease(released, subscription, after: "the completion", prefix: prefix)
      }
    }
  }

  /// Subscribes, takes a value, cancels, and returns what observes the release of the probe and
  /// of its subscription. No strong reference to either outlives the call.
  @inline(never)
  private func cancelAndLetGo(
    _ publisher: P
  ) throws(RuleExit) -> (ReleaseSignal, WeakSubscription?) {
    let probe = try subscribe(publisher)
    let subscription = WeakSubscription(probe.subscription)
    if elements != 0 {
      probe.request(.max(1))
      try waitFor(probe, "a value or a completion after request(.max(1))") {
        $0.values > 0 || $0.isCompleted
      }
    }
    try quiesce(probe, after: "receive(_:)")
    probe.cancel()
    try settle(probe)
    return (probe.released, subscription)
  }

  @inline(never)
  private func completeAndLetGo(
    _ publisher: P,
    label: String
  ) throws(RuleExit) -> (ReleaseSignal, WeakSubscription?) {
    let probe = try subscribe(publisher, label: label)
    let subscription = WeakSubscription(probe.subscription)
    probe.request(.unlimited)
    try waitFor(probe, "a completion under .unlimited demand") { $0.isCompleted }
    try awaitIdle(probe, after: "receive(completion:)")
    try settle(probe)
    return (probe.released, subscription)
  }

  private func expectRelease(
    _ released: ReleaseSignal,
    _ subscription: WeakSubscription?,
    after event: String,
    prefix: String = ""
  ) throws(RuleExit) {
    let deadline = DispatchTime.now() + conformance.timeout.dispatchInterval
    guard released.wait(until: deadline) else {
      throw .failed(
        "\(prefix)the subscriber was still alive \(conformance.timeout) after \(event), although "
          + "only the publisher could still refer to it: the publisher or its subscription keeps it"
      )
    }
    if let subscription, !subscription.awaitRelease(until: deadline) {
      throw .failed(
        "\(prefix)the subscription (\(subscription.typeName)) was still alive "
          + "\(conformance.timeout) after \(event), although its subscriber had let go of it"
      )
    }
  }

  // MARK: SC-5 Independence

  func independentSubscriptions() throws(RuleExit) {
    guard conformance.independentSubscriptions else {
      throw .skipped("the publisher's subscriptions are declared shared (independentSubscriptions)")
    }
    let publisher = conformance.makePublisher()
    let first = try subscribe(publisher, label: "first subscription")
    let second = try subscribe(publisher, label: "second subscription")
    for probe in [first, second] {
      probe.request(.max(1))
      try waitFor(probe, "a value or a completion after request(.max(1))") {
        $0.values > 0 || $0.isCompleted
      }
      try quiesce(probe, after: "receive(_:)")
    }
    first.cancel()
    if let elements {
      second.request(.unlimited)
      try waitFor(second, "the rest of \(elements) values and a completion") { $0.isCompleted }
      try settle(first, second)
      let state = second.snapshot
      guard state.values == elements, case .finished? = state.completion else {
        throw fail(
          second,
          "expected \(elements) values, then .finished, after the first subscription was "
            + "cancelled; received \(state.summary)"
        )
      }
    } else {
      let before = second.snapshot.values
      second.request(.max(2))
      try waitFor(second, "2 more values or a completion after the first was cancelled") {
        $0.values >= before + 2 || $0.isCompleted
      }
      try settle(first, second)
    }
  }
}
