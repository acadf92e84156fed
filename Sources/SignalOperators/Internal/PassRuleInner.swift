public import StreamCore

/// What a selecting operator does with one upstream value.
@usableFromInline
package enum PassVerdict<Failure: Error> {
  /// Drop the value and ask the upstream for this much more.
  case drop(Subscribers.Demand)

  /// Send the value downstream.
  case pass

  /// Send the value downstream, then cancel the upstream and finish.
  case passAndFinish

  /// Drop the value, cancel the upstream and finish.
  case finish

  /// Drop the value, cancel the upstream and fail.
  case fail(Failure)
}

/// The part of a single-upstream selecting operator that differs from one operator to the next:
/// which values pass. ``PassRuleInner`` does the rest.
@usableFromInline
package protocol PassRule {
  associatedtype Input
  associatedtype UpstreamFailure: Error
  associatedtype Failure: Error

  /// The subscription's description: Combine's name for the operator.
  static var name: String { get }

  /// Decides what happens to `input`. Called outside any lock, for one value at a time.
  mutating func judge(_ input: Input) -> PassVerdict<Failure>

  /// Turns an upstream failure into the downstream's failure.
  static func convert(_ failure: UpstreamFailure) -> Failure

  /// Whether a value or a completion from an upstream that has not sent its subscription yet,
  /// or a request made before it, traps (as in Combine's `prefix(while:)` and
  /// `tryPrefix(while:)`).
  static var trapsEventsBeforeSubscription: Bool { get }

  /// Whether a value from an upstream that has not sent its subscription yet is ignored (as in
  /// Combine's `drop(while:)`) rather than judged (as in its `output(in:)`). A completion before
  /// the subscription is always ignored, unless the rule traps or is subscriber-first.
  static var ignoresValuesBeforeSubscription: Bool { get }

  /// Whether the downstream gets its subscription before the upstream is subscribed (as in
  /// Combine's `dropFirst(_:)`); the upstream's subscription is then not passed on, and
  /// ``initialRequest`` is requested when it arrives.
  static var subscriberFirst: Bool { get }

  /// What a subscriber-first rule asks the upstream for when its subscription arrives, on top
  /// of what the downstream requested until then.
  var initialRequest: Subscribers.Demand { get }

  /// Whether the subscription's mirror shows its downstream (as Combine's `prefix(while:)` and
  /// `tryPrefix(while:)`) rather than no children.
  static var reflectsDownstream: Bool { get }

  /// Whether `request(.none)` traps (as in Combine's `dropFirst(_:)`, `drop(while:)` and
  /// `prefix(while:)`) rather than being passed upstream (its `output(in:)`).
  static var trapsRequestNone: Bool { get }
}

extension PassRule {
  /// Traps, by default.
  @inlinable
  package static var trapsRequestNone: Bool { true }

  /// No mirror children, by default.
  @inlinable
  package static var reflectsDownstream: Bool { false }

  /// Ignores events before the subscription, by default.
  @inlinable
  package static var trapsEventsBeforeSubscription: Bool { false }

  /// Judges values sent before the subscription, by default.
  @inlinable
  package static var ignoresValuesBeforeSubscription: Bool { false }

  /// Subscribes the upstream first, by default.
  @inlinable
  package static var subscriberFirst: Bool { false }

  /// Nothing, by default.
  @inlinable
  package var initialRequest: Subscribers.Demand { .none }
}

/// The subscription of `output`, `dropFirst`, `drop(while:)`, `prefix(while:)` and their `try`
/// forms: one upstream, one downstream, and a ``PassRule`` that judges each value.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --receive(_:)--> active         (rule checked out while it judges, then checked in)
/// active --verdict finish/fail, completion, cancel()--> terminal  (downstream == nil)
/// ```
///
/// Subscriber-first (`dropFirst`): the downstream has this subscription before the upstream is
/// subscribed; its requests until then add up in `pending`, requested when the upstream's
/// subscription arrives.
///
/// The rule, which may hold user closures, is checked out of the lock while it judges a value,
/// so that no closure runs under the lock; a `cancel()` meanwhile releases everything else, and
/// the judging thread drops the rule instead of checking it back in.
// Sendable: mutable state is guarded by `lock`; the checked-out rule is used only by the thread
// the upstream sends on, and every call out of this class happens after the lock is released.
@usableFromInline
package final class PassRuleInner<Rule: PassRule, Downstream: Subscriber>: @unchecked Sendable,
  Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Downstream.Input == Rule.Input, Downstream.Failure == Rule.Failure {
  @usableFromInline
  package typealias Input = Rule.Input

  @usableFromInline
  package typealias Failure = Rule.UpstreamFailure

  @usableFromInline
  package let lock = Lock()

  /// `nil` before the subscription arrives and once terminal.
  @usableFromInline
  package var upstream: (any Subscription)?

  /// `nil` once terminal.
  @usableFromInline
  package var downstream: Downstream?

  /// `nil` while checked out to judge a value, and once terminal.
  @usableFromInline
  package var rule: Rule?

  /// What the downstream requested before the upstream's subscription arrived (subscriber-first
  /// rules only); requested, with the rule's initial request, when it arrives.
  @usableFromInline
  package var pending = Subscribers.Demand.none

  /// Whether to finish as soon as the downstream has its subscription (nothing can pass).
  @usableFromInline
  package let finishAtOnce: Bool

  @inlinable
  package init(
    downstream: Downstream,
    rule: Rule,
    finishAtOnce: Bool = false
  ) {
    self.downstream = downstream
    self.rule = rule
    self.finishAtOnce = finishAtOnce
  }

  @inlinable
  package func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> (Downstream, Subscribers.Demand)? in
      guard upstream == nil, let downstream else { return nil }
      upstream = subscription
      // A value sent before the subscription may have used up part of the initial request.
      defer { pending = .none }
      return (downstream, pending + (rule?.initialRequest ?? .none))
    }
    guard let (downstream, pending) = accepted else {
      subscription.cancel()
      return
    }
    if Rule.subscriberFirst {
      if pending != .none { subscription.request(pending) }
      return
    }
    downstream.receive(subscription: self)
    if finishAtOnce { end(.finished) }
  }

  @inlinable
  package func receive(_ input: Input) -> Subscribers.Demand {
    let checkout = lock.withLock { () -> (Downstream, Rule)? in
      if upstream == nil, downstream != nil, !Rule.subscriberFirst {
        if Rule.trapsEventsBeforeSubscription {
          trapEventBeforeSubscription(Rule.name, "a value")
        }
        if Rule.ignoresValuesBeforeSubscription { return nil }
      }
      guard let downstream, let rule = rule.take() else { return nil }
      return (downstream, rule)
    }
    guard case (let downstream, var rule)? = checkout else { return .none }
    switch rule.judge(input) {
    case .drop(let demand):
      return checkIn(rule) ? demand : .none
    case .pass:
      return checkIn(rule) ? downstream.receive(input) : .none
    case .passAndFinish:
      // The rule stays checked out: a value the upstream sends from inside this delivery is
      // ignored, and a `cancel()` from inside it suppresses the completion.
      guard lock.withLock({ self.downstream != nil }) else { return .none }
      // The downstream's demand goes back to the upstream as Combine's `output(in:)` returns it
      // for its range's last value (OpenCombine's `OutputTests.testBasicBehavior`), although
      // the upstream is cancelled right after.
      let demand = downstream.receive(input)
      end(.finished)
      return demand
    case .finish:
      end(.finished)
    case .fail(let error):
      end(.failure(error))
    }
    return .none
  }

  @inlinable
  package func receive(completion: Subscribers.Completion<Failure>) {
    if !Rule.subscriberFirst, lock.withLock({ upstream == nil && downstream != nil }) {
      if Rule.trapsEventsBeforeSubscription {
        trapEventBeforeSubscription(Rule.name, "a completion")
      }
      // As in Combine: the downstream has no subscription yet, so the completion is ignored.
      return
    }
    guard let released = release() else { return }
    switch completion {
    case .finished: released.downstream.receive(completion: .finished)
    case .failure(let error): released.downstream.receive(completion: .failure(Rule.convert(error)))
    }
  }

  @inlinable
  package func request(_ demand: Subscribers.Demand) {
    if Rule.trapsRequestNone { demand.assertPositive() }
    let forward = lock.withLock { () -> (any Subscription)? in
      guard downstream != nil else { return nil }
      guard let upstream else {
        if Rule.trapsEventsBeforeSubscription, !Rule.subscriberFirst {
          trapRequestBeforeSubscription(Rule.name)
        }
        pending += demand
        return nil
      }
      return upstream
    }
    forward?.request(demand)
  }

  @inlinable
  package func cancel() {
    release()?.upstream?.cancel()
  }

  /// Puts the rule back after judging and returns `true`, unless the subscription ended
  /// meanwhile; then the rule is dropped by the caller, after the lock, and it returns `false`.
  @inlinable
  package func checkIn(_ rule: Rule) -> Bool {
    lock.withLock {
      guard downstream != nil else { return false }
      self.rule = rule
      return true
    }
  }

  /// Cancels the upstream and sends `completion` downstream, unless already terminal.
  @inlinable
  package func end(_ completion: Subscribers.Completion<Rule.Failure>) {
    guard let released = release() else { return }
    released.upstream?.cancel()
    released.downstream.receive(completion: completion)
  }

  /// Makes the subscription terminal and hands back what it held, to use and drop after the
  /// lock; `nil` if it was already terminal.
  @inlinable
  package func release() -> (downstream: Downstream, upstream: (any Subscription)?, rule: Rule?)? {
    lock.withLock {
      guard let downstream = downstream.take() else { return nil }
      return (downstream, upstream.take(), rule.take())
    }
  }

  @usableFromInline
  package var description: String { Rule.name }

  /// No children, or the downstream alone (see ``PassRule/reflectsDownstream``).
  @usableFromInline
  package var customMirror: Mirror {
    guard Rule.reflectsDownstream else { return Mirror(self, children: [:]) }
    let downstream = lock.withLock { self.downstream }
    return Mirror(
      self,
      children: ["downstream": downstream.map { $0 as Any } ?? (nil as Downstream? as Any)]
    )
  }

  @usableFromInline
  package var playgroundDescription: Any { description }
}
