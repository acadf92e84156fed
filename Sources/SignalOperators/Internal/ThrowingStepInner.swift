public import StreamCore

/// What a throwing mapping or filtering operator does with one upstream value.
///
/// `apply` returns the value to send downstream, or `nil` to drop the input (the operator then
/// asks upstream for one more). A thrown error fails the stream.
@usableFromInline
package protocol ThrowingStep {
  associatedtype Input
  associatedtype Output

  /// The subscription's description: Combine's operator name (`"TryMap"`, …).
  static var name: String { get }

  /// Whether `apply` changes the step's own state (an accumulator, the last value). A stateful
  /// step is moved out of the subscription while it runs, so its state is never copied.
  static var isStateful: Bool { get }

  /// Whether a value or a completion from an upstream that has not sent its subscription yet,
  /// or a request made before it, traps (as in Combine's `tryFilter`, `tryCompactMap`,
  /// `tryRemoveDuplicates`) rather than being ignored.
  static var trapsEventsBeforeSubscription: Bool { get }

  /// Whether `request(.none)` traps (as in Combine's `tryFilter`, `tryCompactMap`,
  /// `tryRemoveDuplicates`) rather than being passed upstream (its `tryMap`, `tryScan`).
  static var trapsRequestNone: Bool { get }

  mutating func apply(_ input: Input) throws -> Output?

  /// The subscription's mirror children, as Combine's subscription for this operator shows
  /// them. `step` is `nil` while a stateful step runs and once the subscription ended.
  static func mirrorChildren(
    downstream: Any,
    step: Self?,
    status: SubscriptionStatus
  )
    -> [Mirror.Child]
}

extension ThrowingStep {
  /// Traps, by default.
  @inlinable
  package static var trapsRequestNone: Bool { true }

  /// No children (as Combine's `tryMap`).
  @inlinable
  package static func mirrorChildren(
    downstream: Any,
    step: Self?,
    status: SubscriptionStatus
  )
    -> [Mirror.Child]
  { [] }
}

/// An operator's name, as a type: lets one ``ThrowingStep`` serve two operators that differ only
/// in their subscription's description.
@usableFromInline
package protocol OperatorName {
  static var name: String { get }
}

/// The subscription of the `try` operators, and of `removeDuplicates` (whose step never throws):
/// it passes demand upstream, runs the step on each value, and on the first thrown error cancels
/// the upstream, fails downstream once and ignores anything later.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --receive(completion:) / error thrown / cancel()--> terminal
/// ```
///
/// The downstream and the step (with its closure) are released when the subscription ends.
// Sendable: `status`, `downstream` and `step` are guarded by `lock`; the upstream, the downstream
// and the step are only called outside it, and upstream calls `receive` one at a time.
@usableFromInline
package final class ThrowingStepInner<
  Step: ThrowingStep,
  UpstreamFailure: Error,
  Downstream: Subscriber
>:
  // Sendable: state guarded by `lock`, calls made outside it (the reason above the class).
  @unchecked Sendable, Subscriber, Subscription, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible, CustomReflectable
where Downstream.Input == Step.Output {
  @usableFromInline
  package typealias Input = Step.Input

  @usableFromInline
  package typealias Failure = UpstreamFailure

  @usableFromInline
  package enum Status {
    case awaitingSubscription
    case active(any Subscription)
    case terminal
  }

  /// What ending the subscription takes out of it, to be released (or called) after the lock.
  @usableFromInline
  package struct Released {
    /// The upstream's subscription.
    @usableFromInline
    let upstream: any Subscription
    /// The subscriber.
    @usableFromInline
    let downstream: Downstream?
    /// The step and its closure.
    @usableFromInline
    let step: Step?

    @inlinable
    init(upstream: any Subscription, downstream: Downstream?, step: Step?) {
      self.upstream = upstream
      self.downstream = downstream
      self.step = step
    }
  }

  @usableFromInline
  package let lock = Lock()

  @usableFromInline
  package var status = Status.awaitingSubscription

  /// `nil` once terminal.
  @usableFromInline
  package var downstream: Downstream?

  /// `nil` once terminal, and while a stateful step is running.
  @usableFromInline
  package var step: Step?

  /// A `try` operator's subscription: the downstream fails with `any Error`.
  @inlinable
  package init(downstream: Downstream, step: Step) where Downstream.Failure == any Error {
    self.downstream = downstream
    self.step = step
  }

  /// The subscription of an operator whose step never throws: the downstream fails with the
  /// upstream's failure.
  @inlinable
  package init(nonThrowing step: Step, downstream: Downstream)
  where Downstream.Failure == UpstreamFailure {
    self.downstream = downstream
    self.step = step
  }

  /// `error` as the downstream's failure. The initialisers admit two downstreams only: one
  /// failing with `any Error`, which takes any error, and one failing with the upstream's
  /// failure, which is given nothing else (its step never throws), so the cast cannot fail.
  @inlinable
  package static func downstreamFailure(_ error: some Error) -> Downstream.Failure {
    error as! Downstream.Failure
  }

  @inlinable
  package func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Downstream? in
      guard case .awaitingSubscription = status, let downstream else { return nil }
      status = .active(subscription)
      return downstream
    }
    guard let accepted else {
      subscription.cancel()
      return
    }
    accepted.receive(subscription: self)
  }

  @inlinable
  package func receive(_ input: Input) -> Subscribers.Demand {
    // Locals rather than a returned tuple: unspecialised code (behind an `any Subscription`)
    // would look up the tuple's type metadata on every value.
    var target: Downstream?
    var running: Step?
    lock.withLock {
      guard case .active = status else {
        if Step.trapsEventsBeforeSubscription, case .awaitingSubscription = status {
          trapEventBeforeSubscription(Step.name, "a value")
        }
        return
      }
      target = downstream
      running = step
      if Step.isStateful { step = nil }
    }
    guard let target, var running else { return .none }
    let output: Step.Output?
    do {
      output = try running.apply(input)
    } catch {
      fail(error)
      return .none
    }
    if Step.isStateful {
      var dropped: Step?
      lock.withLock {
        guard case .active = status else {
          dropped = running
          return
        }
        step = running
      }
      guard dropped == nil else { return .none }  // cancelled while the step ran
    }
    guard let output else { return .max(1) }
    return target.receive(output)
  }

  @inlinable
  package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
    let released = lock.withLock { () -> Released? in
      if Step.trapsEventsBeforeSubscription, case .awaitingSubscription = status {
        trapEventBeforeSubscription(Step.name, "a completion")
      }
      return end()
    }
    guard let released, let downstream = released.downstream else {
      return
    }  // the upstream and the step are dropped after the lock
    switch completion {
    case .finished:
      downstream.receive(completion: .finished)
    case .failure(let error):
      downstream.receive(completion: .failure(Self.downstreamFailure(error)))
    }
  }

  /// Cancels the upstream and sends `error` downstream, unless the subscription already ended.
  @inlinable
  package func fail(_ error: any Error) {
    guard let released = lock.withLock({ end() }) else { return }
    released.upstream.cancel()
    released.downstream?.receive(completion: .failure(Self.downstreamFailure(error)))
  }

  /// Ends the subscription while active; call under `lock`.
  @inlinable
  package func end() -> Released? {
    guard case .active(let upstream) = status else { return nil }
    status = .terminal
    return Released(upstream: upstream, downstream: downstream.take(), step: step.take())
  }

  @inlinable
  package func request(_ demand: Subscribers.Demand) {
    if Step.trapsRequestNone { demand.assertPositive() }
    let upstream = lock.withLock { () -> (any Subscription)? in
      guard case .active(let upstream) = status else {
        if Step.trapsEventsBeforeSubscription, case .awaitingSubscription = status {
          trapRequestBeforeSubscription(Step.name)
        }
        return nil
      }
      return upstream
    }
    upstream?.request(demand)
  }

  @inlinable
  package func cancel() {
    let released = lock.withLock { () -> Released? in
      guard case .active = status else {
        status = .terminal
        return nil
      }
      return end()
    }
    released?.upstream.cancel()
  }

  @usableFromInline
  package var description: String { Step.name }

  @usableFromInline
  package var playgroundDescription: Any { description }

  /// As Combine's subscription for the operator: see
  /// ``ThrowingStep/mirrorChildren(downstream:step:status:)``.
  @usableFromInline
  package var customMirror: Mirror {
    let (downstream, step, status) = lock.withLock {
      () -> (Downstream?, Step?, SubscriptionStatus) in
      switch self.status {
      case .awaitingSubscription: (self.downstream, self.step, .awaitingSubscription)
      case .active(let subscription): (self.downstream, self.step, .subscribed(subscription))
      case .terminal: (self.downstream, self.step, .terminal)
      }
    }
    let children = Step.mirrorChildren(
      downstream: downstream.map { $0 as Any } ?? (nil as Downstream? as Any),
      step: step,
      status: status
    )
    return Mirror(self, children: children)
  }
}
