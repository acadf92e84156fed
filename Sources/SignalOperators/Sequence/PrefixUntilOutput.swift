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
  /// `publisher` emits, the upstream is cancelled, `publisher`'s subscription is let go of (it
  /// was asked for one value), and the publisher finishes. If `publisher` completes without
  /// emitting, finished or failed, its completion is ignored and the values keep flowing, as in
  /// Combine; so is a value it sends before its subscription.
  ///
  /// <!-- marbles:prefix-until-output -->
  /// Marble diagram of `prefix(untilOutputFrom: trigger)`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input    -a-b-c-d|
  /// trigger  ----t-----|
  /// output   -a-b|
  /// ```
  ///
  /// ![Marble diagram of prefix(untilOutputFrom: trigger)](marble-prefix-until-output)
  /// <!-- /marbles:prefix-until-output -->
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
      inner.sideLink.attach(inner)
      other.subscribe(Inner.Side(link: inner.sideLink, combineIdentifier: inner.combineIdentifier))
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.PrefixUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.PrefixUntilOutput: Sendable where Upstream: Sendable, Other: Sendable {}

extension Publishers.PrefixUntilOutput {
  // Sendable: all mutable state is in `state`, guarded by `lock`; calls out happen after it is
  // released. While the upstream's thread is calling the downstream, the trigger only moves the
  // state to `finishing`, and that thread sends `.finished` once its call returns.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    /// The other publisher's subscriber reaches this subscription through it until it ends.
    let sideLink = SideLink<Inner>()
    /// See ``PrefixUntilOutputState`` for the transitions.
    private var state: PrefixUntilOutputState<Downstream>
    /// Whether the other publisher completed; guarded by `lock`. A value it sends afterwards
    /// breaks the protocol and is ignored.
    private var otherEnded = false
    /// Whether the other publisher has sent its subscription.
    private var otherSubscribed = false

    init(downstream: Downstream) {
      state = .awaitingUpstream(downstream: downstream, other: nil)
    }

    func receive(subscription: any Subscription) {
      switch lock.withLock({ state.subscribeUpstream(subscription) }) {
      case .reject:
        subscription.cancel()
      case .finishAtOnce(let downstream):
        sideLink.cut()
        subscription.cancel()
        downstream.receive(subscription: self)
        downstream.receive(completion: .finished)
      case .start(let downstream):
        downstream.receive(subscription: self)
        deliveryReturned()
      }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard let target = lock.withLock({ state.startDelivery() }) else { return .none }
      let demand = target.receive(input)
      return deliveryReturned() ? .none : demand
    }

    /// Ends a call into the downstream; sends `.finished` if the trigger came meanwhile.
    /// Returns whether the stream has ended.
    @discardableResult
    private func deliveryReturned() -> Bool {
      guard let finishing = lock.withLock({ state.endDelivery() }) else { return false }
      finishing.receive(completion: .finished)
      return true
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // The upstream subscription is released after the lock.
      let released = lock.withLock { state.upstreamCompleted() }
      sideLink.cut()
      released?.other?.cancel()
      released?.downstream?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      lock.withLock { state.upstream }?.request(demand)
    }

    func cancel() {
      let released = lock.withLock { state.cancel() }
      sideLink.cut()
      released.upstream?.cancel()
      released.other?.cancel()
    }

    fileprivate func receiveOther(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard state.subscribeOther(subscription) else { return false }
        otherSubscribed = true
        return true
      }
      guard accepted else { return subscription.cancel() }
      subscription.request(.max(1))
    }

    fileprivate func receiveOther() -> Subscribers.Demand {
      // As Combine's: a value the other publisher sends before its subscription is ignored
      // (OpenCombine's `testPrefixUntilOutputReceiveValueBeforeSubscription`), and the other's
      // subscription is let go of after its value, not cancelled (it was asked for one value).
      let action = lock.withLock { () -> PrefixUntilOutputState<Downstream>.TriggerAction in
        guard otherSubscribed else { return .ignore }
        return state.trigger(otherEnded: otherEnded)
      }
      switch action {
      case .ignore:
        break
      case .cancel(let released):
        sideLink.cut()
        released.upstream?.cancel()
      case .finish(let downstream, let released):
        sideLink.cut()
        released.upstream?.cancel()
        downstream.receive(completion: .finished)
      }
      return .none
    }

    fileprivate func receiveOther(completion: Subscribers.Completion<Other.Failure>) {
      let done = lock.withLock { () -> (any Subscription)? in
        otherEnded = true
        return state.otherCompleted()
      }
      _ = done  // released after the lock
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

      /// The subscription, until it ends.
      let link: SideLink<Inner>

      /// The subscription's, as in Combine, where both subscribers are one object.
      let combineIdentifier: CombineIdentifier

      func receive(subscription: any Subscription) {
        guard let inner = link.owner else { return subscription.cancel() }
        inner.receiveOther(subscription: subscription)
      }

      func receive(_ input: Other.Output) -> Subscribers.Demand {
        link.owner?.receiveOther() ?? .none
      }

      func receive(completion: Subscribers.Completion<Other.Failure>) {
        link.owner?.receiveOther(completion: completion)
      }

      var description: String { "PrefixUntilOutput" }

      var customMirror: Mirror { Mirror(self, children: [:]) }

      var playgroundDescription: Any { description }
    }
  }
}

/// The state of a `prefix(untilOutputFrom:)` subscription.
///
/// ```
/// awaitingUpstream --upstream subscription--> active (a delivery: the downstream's subscription)
/// awaitingUpstream --trigger--> triggeredEarly --upstream subscription--> terminal
///                                     (upstream cancelled; subscription, then .finished)
/// active --trigger, no delivery under way--> terminal   (upstream cancelled, .finished)
/// active --trigger during a delivery--> finishing --last delivery returns--> terminal (.finished)
/// active --upstream completes--> terminal; any --cancel()--> terminal
/// ```
///
/// `deliveries` counts the calls into the downstream under way on the upstream's thread (nested
/// when the downstream requests from inside one). Transitions only change the state and return
/// what the caller calls or drops after the lock.
enum PrefixUntilOutputState<Downstream> {
  /// Subscribed to the upstream, not triggered.
  struct Active {
    var downstream: Downstream
    var upstream: any Subscription
    var other: (any Subscription)?
    var deliveries: Int
  }

  /// What a transition releases; the caller cancels or drops it after the lock.
  struct Released {
    var downstream: Downstream?
    var upstream: (any Subscription)?
    var other: (any Subscription)?
  }

  /// What the caller does with the upstream's subscription.
  enum SubscribeAction {
    /// Cancel it: the subscription ended or already has an upstream.
    case reject
    /// Send the downstream this subscription, then end that delivery.
    case start(Downstream)
    /// Triggered already: cancel it, send the downstream this subscription and `.finished`.
    case finishAtOnce(Downstream)
  }

  /// What the caller does when the other publisher sends a value.
  enum TriggerAction {
    case ignore
    /// Cancel what was released; a delivery under way sends `.finished` when it returns.
    case cancel(Released)
    /// Cancel what was released and send `.finished` to the downstream.
    case finish(Downstream, Released)
  }

  case awaitingUpstream(downstream: Downstream, other: (any Subscription)?)
  /// The trigger came before the upstream's subscription.
  case triggeredEarly(Downstream)
  case active(Active)
  /// The trigger came during a delivery; `.finished` follows when the last one returns.
  case finishing(downstream: Downstream, deliveries: Int)
  case terminal

  /// The upstream's subscription, to pass demand to.
  var upstream: (any Subscription)? {
    guard case .active(let active) = self else { return nil }
    return active.upstream
  }

  mutating func subscribeUpstream(_ subscription: any Subscription) -> SubscribeAction {
    switch self {
    case .awaitingUpstream(let downstream, let other):
      self = .active(
        Active(downstream: downstream, upstream: subscription, other: other, deliveries: 1)
      )
      return .start(downstream)
    case .triggeredEarly(let downstream):
      self = .terminal
      return .finishAtOnce(downstream)
    case .active, .finishing, .terminal:
      return .reject
    }
  }

  /// Starts a delivery of an upstream value; returns the downstream to send it to, or `nil`
  /// to drop it.
  mutating func startDelivery() -> Downstream? {
    guard case .active(var active) = self else { return nil }
    active.deliveries += 1
    self = .active(active)
    return active.downstream
  }

  /// Ends a delivery; returns the downstream to send `.finished` to when the trigger came
  /// during it and it was the last one under way.
  mutating func endDelivery() -> Downstream? {
    switch self {
    case .active(var active):
      active.deliveries -= 1
      self = .active(active)
      return nil
    case .finishing(let downstream, let deliveries):
      guard deliveries == 1 else {
        self = .finishing(downstream: downstream, deliveries: deliveries - 1)
        return nil
      }
      self = .terminal
      return downstream
    case .awaitingUpstream, .triggeredEarly, .terminal:
      return nil
    }
  }

  /// The upstream completed; returns what to release, with the downstream to send the
  /// completion to, or `nil` when the subscription is ending anyway.
  mutating func upstreamCompleted() -> Released? {
    switch self {
    case .finishing, .terminal:
      return nil
    case .awaitingUpstream, .triggeredEarly:
      // A completion before the upstream's subscription breaks the protocol: the downstream,
      // which has no subscription yet either, doesn't get it (as Combine); the rest ends.
      var released = cancel()
      released.downstream = nil
      return released
    case .active:
      return cancel()
    }
  }

  /// Ends the subscription; the caller cancels the upstream and the other publisher.
  mutating func cancel() -> Released {
    defer { self = .terminal }
    switch self {
    case .awaitingUpstream(let downstream, let other):
      return Released(downstream: downstream, other: other)
    case .triggeredEarly(let downstream), .finishing(let downstream, _):
      return Released(downstream: downstream)
    case .active(let active):
      return Released(downstream: active.downstream, upstream: active.upstream, other: active.other)
    case .terminal:
      return Released()
    }
  }

  /// Takes the other publisher's subscription; `false` when the caller must cancel it.
  mutating func subscribeOther(_ subscription: any Subscription) -> Bool {
    switch self {
    case .awaitingUpstream(let downstream, nil):
      self = .awaitingUpstream(downstream: downstream, other: subscription)
      return true
    case .active(var active) where active.other == nil:
      active.other = subscription
      self = .active(active)
      return true
    default:
      return false
    }
  }

  /// The other publisher sent a value; `otherEnded`: it had completed already (a misbehaving
  /// publisher), so the value is ignored, as Combine.
  mutating func trigger(otherEnded: Bool = false) -> TriggerAction {
    if otherEnded { return .ignore }
    switch self {
    case .awaitingUpstream(let downstream, let other):
      self = .triggeredEarly(downstream)
      return .cancel(Released(other: other))
    case .active(let active):
      let released = Released(upstream: active.upstream, other: active.other)
      guard active.deliveries == 0 else {
        self = .finishing(downstream: active.downstream, deliveries: active.deliveries)
        return .cancel(released)
      }
      self = .terminal
      return .finish(active.downstream, released)
    case .triggeredEarly, .finishing, .terminal:
      return .ignore
    }
  }

  /// The other publisher completed; returns its subscription, to drop after the lock.
  mutating func otherCompleted() -> (any Subscription)? {
    switch self {
    case .awaitingUpstream(let downstream, let other):
      self = .awaitingUpstream(downstream: downstream, other: nil)
      return other
    case .active(var active):
      let other = active.other
      active.other = nil
      self = .active(active)
      return other
    case .triggeredEarly, .finishing, .terminal:
      return nil
    }
  }
}
