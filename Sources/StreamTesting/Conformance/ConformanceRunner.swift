import Dispatch
import StreamCore

/// Why a rule stopped before passing.
enum RuleExit: Error {
  case failed(String)
  case skipped(String)
}

/// Runs the rules of one ``PublisherConformance`` and holds what the rules learn about the
/// publisher on the way: whether it delivers on other threads.
///
/// Each rule is a method that returns if the publisher passed and throws ``RuleExit`` if not.
final class ConformanceRunner<P: Publisher> {
  typealias Probe = ConformanceProbe<P.Output, P.Failure>

  let conformance: PublisherConformance<P>

  /// `nil` until a probe has seen a value or a completion; then whether any came from another
  /// thread than the one that asked for it.
  private var deliversAsynchronously: Bool?

  init(_ conformance: PublisherConformance<P>) {
    self.conformance = conformance
  }

  var elements: Int? { conformance.elements }

  func outcome(of rule: ConformanceRule) -> ConformanceResult.Outcome {
    do throws(RuleExit) {
      try check(rule.check)
      return .passed
    } catch {
      switch error {
      case .failed(let message): return .failed(message)
      case .skipped(let reason): return .skipped(reason)
      }
    }
  }

  private func check(_ check: ConformanceRule.Check) throws(RuleExit) {
    switch check {
    case .demandOneAtATime: try demandOneAtATime()
    case .demandFromReceive: try demandFromReceive()
    case .demandUpFront: try demandUpFront()
    case .demandUnlimited: try demandUnlimited()
    case .requestFromReceiveDoesNotRecurse: try requestFromReceiveDoesNotRecurse()
    case .subscriptionFirstAndOnce: try subscriptionFirstAndOnce()
    case .atMostOneCompletion: try atMostOneCompletion()
    case .finiteElementsThenFinished: try finiteElementsThenFinished()
    case .failureExactlyOnce: try failureExactlyOnce()
    case .cancelFromReceive: try cancelFromReceive()
    case .cancelFromOutside: try cancelFromOutside()
    case .cancelIsIdempotent: try cancelIsIdempotent()
    case .requestAfterCancel: try requestAfterCancel()
    case .concurrentRequests: try concurrentRequests()
    case .concurrentRequestAndCancel: try concurrentRequestAndCancel()
    case .releasedAfterCancel: try releasedAfterCancel()
    case .releasedAfterCompletion: try releasedAfterCompletion()
    case .independentSubscriptions: try independentSubscriptions()
    }
  }

  // MARK: Sources

  /// The publishers known to complete, with the label their messages carry.
  func completingSources() -> [(label: String, make: @Sendable () -> P)] {
    var sources: [(label: String, make: @Sendable () -> P)] = []
    if elements != nil { sources.append(("", conformance.makePublisher)) }
    if let failing = conformance.makeFailingPublisher {
      sources.append(("failing publisher", failing))
    }
    return sources
  }

  // MARK: Probing

  /// Subscribes a new probe to `publisher` and waits for its subscription.
  func subscribe(
    _ publisher: P,
    label: String = "",
    action: ProbeValueAction = .nothing,
    strictCancel: Bool = true,
    keepsSubscription: Bool = false
  ) throws(RuleExit) -> Probe {
    let probe = Probe(
      label: label,
      action: action,
      strictCancel: strictCancel,
      keepsSubscription: keepsSubscription
    )
    probe.subscribe(to: publisher)
    try waitFor(probe, "receive(subscription:) after subscribe(_:)") { $0.subscriptions > 0 }
    return probe
  }

  /// Waits until `condition` holds for the probe's state; fails at once on a violation, and
  /// after `timeout` without it.
  ///
  /// With `resettingOnProgress`, the timeout counts from the latest call into the probe.
  func waitFor(
    _ probe: Probe,
    _ what: @autoclosure () -> String,
    resettingOnProgress: Bool = false,
    until condition: (ProbeState) -> Bool
  ) throws(RuleExit) {
    probe.beginWaiting()
    defer { probe.endWaiting() }
    let interval = conformance.timeout.dispatchInterval
    var deadline = DispatchTime.now() + interval
    var seenEvents = -1
    while true {
      let state = probe.snapshot
      try checkViolations(probe, state)
      if condition(state) { return }
      if resettingOnProgress && state.events != seenEvents {
        seenEvents = state.events
        deadline = DispatchTime.now() + interval
      }
      if probe.progress.wait(timeout: deadline) == .timedOut {
        let state = probe.snapshot
        try checkViolations(probe, state)
        if condition(state) { return }
        let quiet = resettingOnProgress ? " with no new call" : ""
        throw fail(
          probe,
          "timed out after \(conformance.timeout)\(quiet) waiting for \(what()); received "
            + state.summary
        )
      }
    }
  }

  /// Waits until no call into the probe is under way.
  func awaitIdle(_ probe: Probe, after what: String) throws(RuleExit) {
    try waitFor(probe, "the subscriber to return from \(what)") { $0.isIdle }
  }

  /// Waits until the probe is idle and, unless the publisher is known to deliver synchronously,
  /// has had no call for `quietPeriod`: anything already on its way has then arrived, so that
  /// what comes after a `cancel()` that follows was sent after it.
  func quiesce(_ probe: Probe, after what: String) throws(RuleExit) {
    try awaitIdle(probe, after: what)
    guard deliversAsynchronously != false else { return }
    let quiet = conformance.quietPeriod.dispatchInterval
    let deadline = DispatchTime.now() + conformance.timeout.dispatchInterval
    probe.beginWaiting()
    defer { probe.endWaiting() }
    while probe.progress.wait(timeout: .now() + quiet) == .success {
      if DispatchTime.now() > deadline {
        throw fail(
          probe,
          "timed out after \(conformance.timeout) waiting for the calls after \(what) to stop"
        )
      }
    }
    try awaitIdle(probe, after: what)
  }

  /// Ends a rule's use of a probe: watches for late events if the publisher delivers
  /// asynchronously, then fails on any violation.
  func settle(_ probes: Probe...) throws(RuleExit) {
    for probe in probes {
      let state = probe.snapshot
      if state.asynchronousEvents > 0 {
        deliversAsynchronously = true
      } else if state.events > 1 && deliversAsynchronously == nil {
        deliversAsynchronously = false
      }
    }
    if deliversAsynchronously != false {
      let deadline = DispatchTime.now() + conformance.quietPeriod.dispatchInterval
      for probe in probes {
        probe.beginWaiting()
        defer { probe.endWaiting() }
        while probe.snapshot.violations.isEmpty
          && probe.progress.wait(timeout: deadline) == .success
        {
        }
      }
    }
    for probe in probes {
      try checkViolations(probe, probe.snapshot)
    }
  }

  func checkViolations(_ probe: Probe, _ state: ProbeState) throws(RuleExit) {
    guard !state.violations.isEmpty else { return }
    var message = state.violations.joined(separator: "; ")
    if state.omittedViolations > 0 {
      message += "; and \(state.omittedViolations) more"
    }
    throw fail(probe, message)
  }

  func fail(_ probe: Probe, _ message: String) -> RuleExit {
    .failed(probe.label.isEmpty ? message : "\(probe.label): \(message)")
  }
}

/// A weak reference to a subscription object, for rules that check it is released.
final class WeakSubscription {
  weak var object: AnyObject?
  let typeName: String

  /// `nil` unless `subscription` is a class instance other than `Subscriptions.empty`, whose
  /// release can be observed.
  init?(_ subscription: (any Subscription)?) {
    guard let subscription, type(of: subscription) is AnyObject.Type else { return nil }
    let object = subscription as AnyObject
    guard object !== (Subscriptions.empty as AnyObject) else { return nil }
    self.object = object
    typeName = String(describing: type(of: subscription))
  }

  /// Waits until the object is released, or until `deadline`; returns whether it was.
  func awaitRelease(until deadline: DispatchTime) -> Bool {
    let pause = DispatchSemaphore(value: 0)
    while object != nil {
      if DispatchTime.now() >= deadline { return false }
      _ = pause.wait(timeout: .now() + .milliseconds(1))
    }
    return true
  }
}

extension Duration {
  /// The duration in nanoseconds, saturating at `Int.max`.
  var dispatchInterval: DispatchTimeInterval {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return .nanoseconds(seconds < 0 ? 0 : Int.max) }
    let (total, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflow2 { return .nanoseconds(Int.max) }
    return .nanoseconds(Int(max(total, 0)))
  }
}
