public import StreamCore

extension Publisher {
  /// Publishes values until `publisher` emits a value, then finishes.
  ///
  /// ```swift
  /// let stop = PassthroughSubject<Void, Never>()
  /// let cancellable = ticks.prefix(untilOutputFrom: stop).sink { print($0) }
  /// stop.send()  // ticks stops: the upstream is cancelled and the sink gets .finished
  /// ```
  ///
  /// `publisher` is subscribed first, with a demand of one, and then the upstream. When
  /// `publisher` emits, both are cancelled and the publisher finishes. If `publisher` completes
  /// without emitting, finished or failed, its completion is ignored and the values keep
  /// flowing, as in Combine.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/PrefixUntilOutput``.
  ///
  /// - Parameter publisher: The publisher whose first value ends the stream.
  /// - Returns: A publisher that publishes values until `publisher` emits.
  public func prefix<P: Publisher>(
    untilOutputFrom publisher: P
  ) -> Publishers.PrefixUntilOutput<Self, P> {
    Publishers.PrefixUntilOutput(upstream: self, other: publisher)
  }
}

extension Publishers {
  /// A publisher that publishes the upstream's values until another publisher emits.
  ///
  /// ```swift
  /// let untilStop = Publishers.PrefixUntilOutput(upstream: ticks, other: stop)
  /// ```
  ///
  /// See ``StreamCore/Publisher/prefix(untilOutputFrom:)``. The subscription's description is
  /// `"PrefixUntilOutput"`.
  ///
  /// > Thread safety: The upstream and the other publisher may send from different threads at
  /// > once. No value is delivered once the other's value has been seen; `.finished` then goes
  /// > downstream on the other's thread, or, if a value is being delivered at that moment, on
  /// > the upstream's thread right after it. The downstream is never called from two threads at
  /// > once. `request(_:)` and `cancel()` are safe from any thread.
  public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are published until `other` emits.
    public let upstream: Upstream

    /// The publisher whose first value ends the stream.
    public let other: Other

    /// Creates a publisher of the upstream's values until `other` emits.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are published until `other` emits.
    ///   - other: The publisher whose first value ends the stream.
    public init(upstream: Upstream, other: Other) {
      self.upstream = upstream
      self.other = other
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      other.subscribe(Inner.Side(inner: inner))
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.PrefixUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.PrefixUntilOutput: Sendable where Upstream: Sendable, Other: Sendable {}

extension Publishers.PrefixUntilOutput {
  // Sendable: all mutable state is guarded by `lock`; calls out happen after it is released.
  // While the upstream's thread is calling the downstream (`deliveries` > 0), the trigger only
  // records `finishPending`, and that thread sends `.finished` once its call returns.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    /// ```
    /// awaitingSubscription --upstream subscription--> active
    /// awaitingSubscription --trigger--> triggered --upstream subscription--> terminal
    ///                                     (upstream cancelled; subscription, then .finished)
    /// active --trigger, no delivery under way--> terminal   (both cancelled, .finished)
    /// active --trigger during a delivery--> finishPending --delivery returns--> terminal
    /// active --upstream completes, cancel()--> terminal
    /// ```
    private let lock = Lock()
    /// `nil` once terminal.
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var other: (any Subscription)?
    private var subscribed = false
    private var triggered = false
    /// The trigger was seen while a call into the downstream was under way.
    private var finishPending = false
    /// How many calls into the downstream, nested on the upstream's thread, are under way.
    private var deliveries = 0

    init(downstream: Downstream) {
      self.downstream = downstream
    }

    private enum SubscriptionAction {
      case reject
      case start(Downstream)
      case finishAtOnce(Downstream)
    }

    private enum TriggerAction {
      case ignore
      case cancelOther((any Subscription)?)
      case cancel((any Subscription)?, (any Subscription)?)
      case finish(Downstream, (any Subscription)?, (any Subscription)?)
    }

    func receive(subscription: any Subscription) {
      let action = lock.withLock { () -> SubscriptionAction in
        guard !subscribed, let downstream else { return .reject }
        subscribed = true
        if triggered {
          self.downstream = nil
          return .finishAtOnce(downstream)
        }
        upstream = subscription
        deliveries += 1
        return .start(downstream)
      }
      switch action {
      case .reject:
        subscription.cancel()
      case .finishAtOnce(let downstream):
        subscription.cancel()
        downstream.receive(subscription: self)
        downstream.receive(completion: .finished)
      case .start(let downstream):
        downstream.receive(subscription: self)
        deliveryReturned()
      }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let target = lock.withLock { () -> Downstream? in
        guard !finishPending, let downstream else { return nil }
        deliveries += 1
        return downstream
      }
      guard let target else { return .none }
      let demand = target.receive(input)
      return deliveryReturned() ? .none : demand
    }

    /// Ends a call into the downstream; sends `.finished` if the trigger came meanwhile.
    /// Returns whether the stream has ended.
    @discardableResult
    private func deliveryReturned() -> Bool {
      let finishing = lock.withLock { () -> Downstream? in
        deliveries -= 1
        guard deliveries == 0, finishPending else { return nil }
        finishPending = false
        return downstream.take()
      }
      guard let finishing else { return false }
      finishing.receive(completion: .finished)
      return true
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // The upstream subscription is released after the lock.
      let released = lock.withLock {
        () -> (Downstream, (any Subscription)?, (any Subscription)?)? in
        guard !finishPending, let downstream = downstream.take() else { return nil }
        return (downstream, other.take(), upstream.take())
      }
      guard let (downstream, other, _) = released else { return }
      other?.cancel()
      downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let target = lock.withLock { downstream == nil ? nil : upstream }
      target?.request(demand)
    }

    func cancel() {
      let released = lock.withLock {
        () -> (Downstream?, (any Subscription)?, (any Subscription)?) in
        finishPending = false
        return (downstream.take(), upstream.take(), other.take())
      }
      released.1?.cancel()
      released.2?.cancel()
    }

    fileprivate func receiveOther(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard downstream != nil, !triggered, other == nil else { return false }
        other = subscription
        return true
      }
      guard accepted else { return subscription.cancel() }
      subscription.request(.max(1))
    }

    fileprivate func receiveOther() -> Subscribers.Demand {
      let action = lock.withLock { () -> TriggerAction in
        guard !triggered, let downstream else { return .ignore }
        triggered = true
        if !subscribed { return .cancelOther(other.take()) }
        if deliveries > 0 {
          finishPending = true
          return .cancel(upstream.take(), other.take())
        }
        self.downstream = nil
        return .finish(downstream, upstream.take(), other.take())
      }
      switch action {
      case .ignore:
        break
      case .cancelOther(let other):
        other?.cancel()
      case .cancel(let upstream, let other):
        upstream?.cancel()
        other?.cancel()
      case .finish(let downstream, let upstream, let other):
        upstream?.cancel()
        other?.cancel()
        downstream.receive(completion: .finished)
      }
      return .none
    }

    fileprivate func receiveOther(completion: Subscribers.Completion<Other.Failure>) {
      let done = lock.withLock { other.take() }
      _ = done
    }

    var description: String { "PrefixUntilOutput" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }

    /// Subscribes to the other publisher on behalf of `inner`.
    struct Side: Subscriber, CustomStringConvertible, CustomReflectable,
      CustomPlaygroundDisplayConvertible
    {
      typealias Input = Other.Output
      typealias Failure = Other.Failure

      let inner: Inner

      let combineIdentifier = CombineIdentifier()

      func receive(subscription: any Subscription) {
        inner.receiveOther(subscription: subscription)
      }

      func receive(_ input: Other.Output) -> Subscribers.Demand {
        inner.receiveOther()
      }

      func receive(completion: Subscribers.Completion<Other.Failure>) {
        inner.receiveOther(completion: completion)
      }

      var description: String { "PrefixUntilOutput" }

      var customMirror: Mirror { Mirror(self, children: [:]) }

      var playgroundDescription: Any { description }
    }
  }
}
