import StreamCore

/// Subscribes on behalf of an expectation helper, decides once whether the expectation passed,
/// and tells the helper through `onDecision`.
///
/// ```
/// undecided --value / completion that settles the rule--> decided  (onDecision, once)
/// undecided --finish()--> timedOut
/// decided / timedOut --anything--> unchanged (late events are ignored)
/// ```
///
/// A decision made on a value (`atLeast` reached, a second value for `one`) cancels the
/// subscription at once; ``finish()`` cancels it in every other case. A subscription that arrives
/// after the decision is cancelled at once.
// Sendable: all mutable state is guarded by `lock`; the subscription and `onDecision` are called
// after it is released. Values reach the helper's thread through the lock, as with a `Sink`.
final class PublisherExpectation<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  /// What the helper waits for.
  enum Rule {
    /// Any number of values, then `.finished`.
    case all
    /// This many values; the publisher need not complete.
    case atLeast(Int)
    /// `.finished`; values are ignored.
    case completion
    /// `.failure`; values are ignored.
    case failure
    /// Exactly one value, then `.finished`.
    case one
  }

  enum Verdict {
    case passed
    /// The reason completes "…; instead " in the failure message.
    case failed(String)
    case timedOut
  }

  /// What the helper learns once it stops waiting.
  struct Outcome {
    var rule: Rule
    var verdict: Verdict
    /// The values received (only for `all`, `atLeast` and `one`).
    var values: [Input]
    /// The error, when the publisher failed.
    var failure: Failure?

    var passed: Bool {
      if case .passed = verdict { return true }
      return false
    }

    /// Explains a failed expectation.
    ///
    /// - Parameter waited: Why the wait ended without a decision, such as "it timed out after
    ///   0.2 seconds"; the count of values received so far is appended where it matters.
    /// - Returns: The text that completes "…; instead ", or `nil` if the expectation passed.
    func failureReason(waitEnded waited: @autoclosure () -> String) -> String? {
      switch verdict {
      case .passed:
        return nil
      case .failed(let reason):
        return reason
      case .timedOut:
        switch rule {
        case .completion, .failure:
          return waited()
        case .all, .atLeast, .one:
          return "\(waited()), after \(valueCount(values.count))"
        }
      }
    }
  }

  private struct State {
    var subscription: (any Subscription)?
    var verdict: Verdict?
    var values: [Input] = []
    var failure: Failure?
  }

  private enum ValueAction {
    case keepWaiting
    case decided(cancelling: (any Subscription)?)
  }

  private let rule: Rule
  private let onDecision: @Sendable () -> Void
  private let lock = Lock()
  private var state = State()

  init(rule: Rule, onDecision: @escaping @Sendable () -> Void) {
    self.rule = rule
    self.onDecision = onDecision
  }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Bool in
      guard state.verdict == nil, state.subscription == nil else { return false }
      state.subscription = subscription
      return true
    }
    guard accepted else {
      subscription.cancel()
      return
    }
    if case .atLeast(let count) = rule {
      subscription.request(.max(count))
    } else {
      subscription.request(.unlimited)
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    // Values dropped by a failed `.one` rule are released after the lock.
    var dropped: [Input] = []
    let action = lock.withLock { () -> ValueAction in
      guard state.verdict == nil else { return .keepWaiting }
      switch rule {
      case .completion, .failure:
        return .keepWaiting
      case .all:
        state.values.append(input)
        return .keepWaiting
      case .atLeast(let count):
        state.values.append(input)
        guard state.values.count >= count else { return .keepWaiting }
        state.verdict = .passed
      case .one:
        guard !state.values.isEmpty else {
          state.values.append(input)
          return .keepWaiting
        }
        state.verdict = .failed("it sent a second value, \(input), before finishing")
        swap(&dropped, &state.values)
      }
      defer { state.subscription = nil }
      return .decided(cancelling: state.subscription)
    }
    if case .decided(let subscription) = action {
      subscription?.cancel()
      onDecision()
    }
    _ = dropped
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    // The subscription is released after the lock: its deinit may call back into this object.
    let (decided, released) = lock.withLock { () -> (Bool, (any Subscription)?) in
      guard state.verdict == nil else { return (false, nil) }
      state.verdict = verdict(for: completion)
      if case .failure(let error) = completion { state.failure = error }
      return (true, state.subscription.take())
    }
    _ = released
    if decided { onDecision() }
  }

  /// Ends the wait: an undecided expectation has timed out. Cancels the subscription if it is
  /// still held and returns the outcome; nothing the publisher sends afterwards changes it.
  func finish() -> Outcome {
    let (outcome, subscription) = lock.withLock { () -> (Outcome, (any Subscription)?) in
      let verdict = state.verdict ?? .timedOut
      state.verdict = verdict
      let outcome = Outcome(
        rule: rule,
        verdict: verdict,
        values: state.values,
        failure: state.failure
      )
      defer { state.subscription = nil }
      return (outcome, state.subscription)
    }
    subscription?.cancel()
    return outcome
  }

  /// Called under the lock, once, with the first completion.
  private func verdict(for completion: Subscribers.Completion<Failure>) -> Verdict {
    let count = state.values.count
    switch (rule, completion) {
    case (.all, .finished), (.completion, .finished), (.failure, .failure):
      return .passed
    case (.one, .finished):
      return count == 1 ? .passed : .failed("it finished without a value")
    case (.atLeast(let wanted), .finished):
      return .failed("it finished after only \(count) of \(wanted) values")
    case (.failure, .finished):
      return .failed("it finished successfully")
    case (.completion, .failure(let error)):
      return .failed("it failed with \(error)")
    case (.atLeast(let wanted), .failure(let error)):
      return .failed("it failed with \(error) after \(count) of \(wanted) values")
    case (.all, .failure(let error)), (.one, .failure(let error)):
      return .failed("it failed with \(error)" + (count == 0 ? "" : " after \(valueCount(count))"))
    }
  }
}

/// "1 value", "2 values".
private func valueCount(_ count: Int) -> String {
  count == 1 ? "1 value" : "\(count) values"
}
