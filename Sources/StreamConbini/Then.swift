import FutureKit
import SignalOperators
public import StreamCore

extension Publisher {
  /// Ignores this publisher's values and, once it finishes successfully, continues with the
  /// publisher `transform` makes.
  ///
  /// ```swift
  /// let publisher = saveSettings.then { connectToServer() }
  /// ```
  ///
  /// Upstream values are dropped. `transform` runs only after a `.finished`, once per
  /// subscription, and its publisher's values and completion go downstream. A failure passes
  /// straight through and `transform` never runs.
  ///
  /// Demand: on the first positive downstream request, upstream is asked for `maxDemand`, and
  /// each dropped value asks for one more, so `maxDemand` stays in flight. Downstream demand is
  /// kept and handed to the child publisher when it subscribes.
  ///
  /// > Thread safety: `transform` runs on the thread that delivers the upstream completion, with
  /// > no lock held. `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameters:
  ///   - maxDemand: The most values in flight upstream; must be greater than zero.
  ///   - transform: Makes the publisher to continue with, after a successful finish.
  /// - Returns: A publisher that sends the child publisher's events.
  public func then<Child: Publisher>(
    maxDemand: Subscribers.Demand = .unlimited,
    _ transform: @escaping () -> Child
  ) -> Publishers.Then<Child, Self> where Child.Failure == Failure {
    Publishers.Then(upstream: self, maxDemand: maxDemand, transform: transform)
  }
}

extension Publishers {
  /// A publisher that ignores its upstream's values and, after a successful finish, continues
  /// with a child publisher; see `then(maxDemand:_:)`.
  ///
  /// ```swift
  /// let publisher = Publishers.Then(upstream: setUp, maxDemand: .max(1)) { [1, 2].publisher }
  /// ```
  ///
  /// The child is made lazily, only after upstream finishes. A failure is forwarded and no child
  /// is made. Cancelling cancels the upstream or the child, whichever is current. Its
  /// subscription's description is `"Then"`.
  ///
  /// > Thread safety: `transform`, downstream and upstream are called with no lock held;
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct Then<Child: Publisher, Upstream: Publisher>: Publisher
  where Child.Failure == Upstream.Failure {
    public typealias Output = Child.Output
    public typealias Failure = Child.Failure

    /// The publisher whose successful finish starts the child.
    public let upstream: Upstream

    /// The most values requested from upstream at any time.
    public let maxDemand: Subscribers.Demand

    /// Makes the child publisher after upstream finishes.
    public let transform: () -> Child

    /// Creates a publisher that continues with `transform()` after `upstream` finishes.
    ///
    /// ```swift
    /// let publisher = Publishers.Then(upstream: setUp, maxDemand: .unlimited) { main }
    /// ```
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are ignored.
    ///   - maxDemand: The most values in flight upstream; traps unless greater than zero.
    ///   - transform: Makes the child publisher, after a successful finish.
    public init(
      upstream: Upstream,
      maxDemand: Subscribers.Demand,
      transform: @escaping () -> Child
    ) {
      precondition(maxDemand > .none, "Publishers.Then: maxDemand must be greater than zero")
      self.upstream = upstream
      self.maxDemand = maxDemand
      self.transform = transform
    }

    /// Subscribes `subscriber` to upstream, then to the child once upstream finishes.
    ///
    /// - Parameter subscriber: The subscriber to attach to this publisher.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, maxDemand: maxDemand, transform: transform))
    }
  }
}

extension Publishers.Then {
  // Sendable: mutable state is guarded by `lock`; transform and all subscriptions run outside it.
  private final class Inner<Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    /// ```
    /// awaitingUpstream --receive(subscription:)--> upstream
    /// upstream --finished--> awaitingChild (transform runs, child subscribed)
    /// awaitingChild --Side.receive(subscription:)--> child
    /// upstream --failure--> terminal
    /// child --completion--> terminal
    /// any --cancel()--> terminal (downstream, upstream, child and transform released)
    /// ```
    private enum State {
      case awaitingUpstream
      case upstream(UpstreamPhase)
      case awaitingChild(Subscribers.Demand)
      case child(any Subscription)
      case terminal
    }

    private struct UpstreamPhase {
      var subscription: any Subscription
      var demand = Subscribers.Demand.none
      var requested = false
    }

    private enum UpstreamEnd {
      /// The failure, for the downstream; the transform is released after it is delivered.
      case forward(Downstream?, (() -> Child)?, Subscribers.Completion<Failure>)
      case startChild(() -> Child)
    }

    private let lock = Lock()
    private var state = State.awaitingUpstream
    private var downstream: Downstream?
    private var transform: (() -> Child)?
    private let maxDemand: Subscribers.Demand

    init(downstream: Downstream, maxDemand: Subscribers.Demand, transform: @escaping () -> Child) {
      self.downstream = downstream
      self.maxDemand = maxDemand
      self.transform = transform
    }

    var description: String { "Then" }

    /// The `downstream` (`nil` once released), the `upstreamSubscription` until the upstream
    /// finished, then the `childSubscription` of the publisher that follows.
    var customMirror: Mirror {
      let (target, upstream, child) = lock.withLock {
        () -> (Downstream?, (any Subscription)?, (any Subscription)?) in
        switch self.state {
        case .upstream(let phase): (self.downstream, phase.subscription, nil)
        case .child(let child): (self.downstream, nil, child)
        case .awaitingUpstream, .awaitingChild, .terminal: (self.downstream, nil, nil)
        }
      }
      return Mirror(
        self,
        children: [
          "downstream": target as Any, "upstreamSubscription": upstream as Any,
          "childSubscription": child as Any,
        ]
      )
    }

    var playgroundDescription: Any { description }

    func receive(subscription: any Subscription) {
      let target = lock.withLock { () -> Downstream? in
        guard case .awaitingUpstream = state else { return nil }
        state = .upstream(UpstreamPhase(subscription: subscription))
        return downstream
      }
      guard let target else {
        subscription.cancel()
        return
      }
      target.receive(subscription: self)
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      let active = lock.withLock { () -> Bool in
        if case .upstream = state { true } else { false }
      }
      return active && maxDemand != .unlimited ? .max(1) : .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      var released: (any Subscription)?  // the upstream's, released after the lock
      let end = lock.withLock { () -> UpstreamEnd? in
        guard case .upstream(let phase) = state else {
          if case .awaitingUpstream = state {
            preconditionFailure("Then: completion received while awaitingUpstream")
          }
          return nil
        }
        released = phase.subscription
        switch completion {
        case .failure:
          state = .terminal
          return .forward(downstream.take(), transform.take(), completion)
        case .finished:
          guard let make = transform.take() else {
            preconditionFailure("Then: upstream finished without a transform")
          }
          state = .awaitingChild(phase.demand)
          return .startChild(make)
        }
      }
      _ = released
      switch end {
      case .forward(let target, let transform, let completion):
        // The transform may hold the last reference to an owner whose deinit cancels this chain:
        // it goes after the lock, and after the failure is delivered.
        withExtendedLifetime(transform) { target?.receive(completion: completion) }
      case .startChild(let make):
        make().subscribe(Side(inner: self))
      case nil:
        break
      }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let target = lock.withLock { () -> (any Subscription, Subscribers.Demand)? in
        switch state {
        case .upstream(var phase):
          phase.demand += demand
          guard !phase.requested else {
            state = .upstream(phase)
            return nil
          }
          phase.requested = true
          state = .upstream(phase)
          return (phase.subscription, maxDemand)
        case .awaitingChild(let stored):
          state = .awaitingChild(stored + demand)
          return nil
        case .child(let child):
          return (child, demand)
        case .awaitingUpstream, .terminal:
          return nil
        }
      }
      guard let (subscription, amount) = target else { return }
      subscription.request(amount)
    }

    func cancel() {
      // The downstream and the transform are released after the lock: either's deinit may call
      // back in (an owner the transform captured cancelling this chain, say).
      let released = lock.withLock {
        () -> (state: State, downstream: Downstream?, transform: (() -> Child)?) in
        let previous = state
        state = .terminal
        return (previous, downstream.take(), transform.take())
      }
      withExtendedLifetime(released) {
        switch released.state {
        case .upstream(let phase): phase.subscription.cancel()
        case .child(let child): child.cancel()
        case .awaitingUpstream, .awaitingChild, .terminal: break
        }
      }
    }

    // The child's events, forwarded by `Side`.

    fileprivate func childSubscribed(_ subscription: any Subscription) {
      let demand = lock.withLock { () -> Subscribers.Demand? in
        guard case .awaitingChild(let demand) = state else { return nil }
        state = .child(subscription)
        return demand
      }
      guard let demand else {
        subscription.cancel()
        return
      }
      if demand > .none { subscription.request(demand) }
    }

    fileprivate func childValue(_ input: Child.Output) -> Subscribers.Demand {
      let target = lock.withLock { () -> Downstream? in
        guard case .child = state else { return nil }
        return downstream
      }
      return target?.receive(input) ?? .none
    }

    fileprivate func childCompleted(_ completion: Subscribers.Completion<Failure>) {
      // The child's subscription is released after the lock.
      let ended = lock.withLock { () -> (Downstream?, any Subscription)? in
        guard case .child(let child) = state else { return nil }
        state = .terminal
        defer { downstream = nil }
        return (downstream, child)
      }
      ended?.0?.receive(completion: completion)
    }
  }

  /// The child's subscriber: forwards to `Inner`.
  private final class Side<Downstream: Subscriber>: Subscriber, Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    private let inner: Inner<Downstream>

    init(inner: Inner<Downstream>) {
      self.inner = inner
    }

    func receive(subscription: any Subscription) {
      inner.childSubscribed(subscription)
    }

    func receive(_ input: Child.Output) -> Subscribers.Demand {
      inner.childValue(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      inner.childCompleted(completion)
    }
  }
}
