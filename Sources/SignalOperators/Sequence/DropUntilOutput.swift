public import StreamCore

extension Publisher {
  /// Drops values until `publisher` emits a value, then publishes every value.
  ///
  /// ```swift
  /// let start = PassthroughSubject<Void, Never>()
  /// let cancellable = ticks.drop(untilOutputFrom: start).sink { print($0) }
  /// start.send()  // from now on ticks are printed
  /// ```
  ///
  /// The downstream gets its subscription first; then `publisher` is subscribed, with a demand of
  /// one, and then the upstream. As in Combine, values that arrive before `publisher` emits are
  /// dropped, and each uses up a unit of the subscriber's demand (a value beyond what the
  /// subscriber requested traps); after its first value `publisher`'s subscription is let go of.
  /// If `publisher` completes before emitting, finished or failed, the upstream is cancelled and
  /// that completion goes downstream. When the upstream completes first, `publisher`'s
  /// subscription is let go of without a cancel, as in Combine.
  ///
  /// <!-- marbles:drop-until-output -->
  /// Marble diagram of `drop(untilOutputFrom: trigger)`, made by running it (a character is a tick
  /// of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input    -a-b-c-d|
  /// trigger  ----t-----|
  /// output   -----c-d|
  /// ```
  ///
  /// ![Marble diagram of drop(untilOutputFrom: trigger)](marble-drop-until-output)
  /// <!-- /marbles:drop-until-output -->
  ///
  /// > Thread safety: As ``StreamCore/Publishers/DropUntilOutput``.
  ///
  /// - Parameter publisher: The publisher whose first value starts the flow.
  /// - Returns: A publisher that drops values until `publisher` emits.
  public func drop<P: Publisher>(
    untilOutputFrom publisher: P
  ) -> Publishers.DropUntilOutput<Self, P> where Failure == P.Failure {
    Publishers.DropUntilOutput(upstream: self, other: publisher)
  }
}

extension Publishers {
  /// A publisher that drops the upstream's values until another publisher emits.
  ///
  /// ```swift
  /// let afterStart = Publishers.DropUntilOutput(upstream: ticks, other: start)
  /// ```
  ///
  /// See ``StreamCore/Publisher/drop(untilOutputFrom:)``. The subscription's description is
  /// `"DropUntilOutput"`.
  ///
  /// > Thread safety: The upstream and the other publisher may send from different threads at
  /// > once. A value that arrives after the other's value has been seen is passed; one that
  /// > arrives before is dropped. Values are delivered on the upstream's thread; a completion of
  /// > the other publisher before its first value is delivered on its thread. `request(_:)` and
  /// > `cancel()` are safe from any thread.
  public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
  where Upstream.Failure == Other.Failure {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are dropped until `other` emits.
    public let upstream: Upstream

    /// The publisher whose first value starts the flow.
    public let other: Other

    /// Creates a publisher that drops the upstream's values until `other` emits.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are dropped until `other` emits.
    ///   - other: The publisher whose first value starts the flow.
    public init(upstream: Upstream, other: Other) {
      self.upstream = upstream
      self.other = other
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      subscriber.receive(subscription: inner)
      inner.sideLink.attach(inner)
      other.subscribe(Inner.Side(link: inner.sideLink, combineIdentifier: inner.combineIdentifier))
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.DropUntilOutput: Sendable where Upstream: Sendable, Other: Sendable {}

extension Publishers.DropUntilOutput {
  // Sendable: all mutable state is in `state`, guarded by `lock`; calls out happen after it is
  // released. Values go downstream only once triggered, and the other's completion only before,
  // so the two threads never call the downstream at once.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    /// The other publisher's subscriber reaches this subscription through it until it ends.
    let sideLink = SideLink<Inner>()
    /// See ``DropUntilOutputState`` for the transitions.
    private var state: DropUntilOutputState<Downstream>
    /// What the subscriber requested, less the values dropped (and those that came after the
    /// end), as Combine counts it: such a value beyond it traps, as in Combine.
    private var dropDemand = Subscribers.Demand.none

    init(downstream: Downstream) {
      state = .dropping(.init(downstream: downstream))
    }

    func receive(subscription: any Subscription) {
      // What the subscriber asked for so far, less the values dropped: as Combine's, a value
      // sent before the subscription has used up its unit of demand.
      let demand = lock.withLock { () -> Subscribers.Demand? in
        state.subscribeUpstream(subscription) ? dropDemand : nil
      }
      guard let demand else { return subscription.cancel() }
      if demand > .none { subscription.request(demand) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let action = lock.withLock { () -> DropUntilOutputState<Downstream>.ValueAction in
        let action = state.receiveValue()
        if case .deliver = action { return action }
        // As Combine's: a dropped value uses up a unit of the subscriber's demand (it is not
        // asked for again), and one the subscriber never asked for traps.
        guard dropDemand > .none else { trapValueBeyondDemand("DropUntilOutput") }
        dropDemand -= 1
        return action
      }
      guard case .deliver(let downstream) = action else { return .none }
      return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let released = lock.withLock({ state.end() }) else { return }
      sideLink.cut()
      // As Combine's: the other publisher is let go of, not cancelled (OpenCombine's
      // `DropUntilOutput`, whose suite runs against Combine too, keeps it); what it sends later
      // no longer reaches this subscription, so a completion it sends isn't a second one here.
      released.downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      lock.withLock { () -> (any Subscription)? in
        dropDemand += demand
        return state.upstreamSubscription
      }?.request(demand)
    }

    func cancel() {
      guard let released = lock.withLock({ state.end() }) else { return }
      sideLink.cut()
      released.upstream?.cancel()
      released.other?.cancel()
    }

    fileprivate func receiveOther(subscription: any Subscription) {
      guard lock.withLock({ state.subscribeOther(subscription) }) else {
        return subscription.cancel()
      }
      subscription.request(.max(1))
    }

    fileprivate func receiveOther() -> Subscribers.Demand {
      // The other publisher was asked for one value: its subscription is let go of, not
      // cancelled, as Combine's (OpenCombine's `DropUntilOutputTests.testDemand`).
      let released = lock.withLock { state.trigger() }
      _ = released  // released after the lock
      return .none
    }

    fileprivate func receiveOther(completion: Subscribers.Completion<Failure>) {
      // What the transition releases (the other's subscription, at least) goes after the lock.
      guard let released = lock.withLock({ state.otherCompleted() }) else { return }
      sideLink.cut()
      released.upstream?.cancel()
      released.downstream.receive(completion: completion)
    }

    var description: String { "DropUntilOutput" }

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

      var description: String { "DropUntilOutput" }

      var customMirror: Mirror { Mirror(self, children: [:]) }

      var playgroundDescription: Any { description }
    }
  }
}

/// The state of a `drop(untilOutputFrom:)` subscription.
///
/// ```
/// dropping --other's first value--> passing        (other let go of, not cancelled)
/// dropping --other completes--> terminal           (upstream cancelled, completion sent)
/// dropping / passing --upstream completes--> terminal    (other let go of, not cancelled)
/// dropping / passing --cancel()--> terminal               (both cancelled)
/// ```
///
/// Transitions only change the state and return what the caller calls or drops after the lock.
enum DropUntilOutputState<Downstream> {
  /// The upstream's subscription, once it arrived. (The demand requested before it is the
  /// subscription's `dropDemand`, which counts every request.)
  enum UpstreamLink {
    case awaiting
    case subscribed(any Subscription)

    var subscription: (any Subscription)? {
      guard case .subscribed(let subscription) = self else { return nil }
      return subscription
    }
  }

  /// Values are dropped until the other publisher sends one.
  struct Dropping {
    var downstream: Downstream
    var upstream = UpstreamLink.awaiting
    var other: (any Subscription)?
  }

  /// The other publisher sent its value (and was cancelled): values pass.
  struct Passing {
    var downstream: Downstream
    var upstream: UpstreamLink
  }

  /// What ending the subscription releases; the caller drops it after the lock.
  struct Released {
    var downstream: Downstream
    var upstream: (any Subscription)?
    var other: (any Subscription)?
  }

  /// What happens to a value from the upstream.
  enum ValueAction {
    /// The subscription ended.
    case ignore
    /// Not triggered yet: drop it and ask for one more.
    case drop
    case deliver(Downstream)
  }

  case dropping(Dropping)
  case passing(Passing)
  case terminal

  private var upstreamLink: UpstreamLink? {
    get {
      switch self {
      case .dropping(let dropping): dropping.upstream
      case .passing(let passing): passing.upstream
      case .terminal: nil
      }
    }
    set {
      guard let newValue else { return }
      switch self {
      case .dropping(var dropping):
        dropping.upstream = newValue
        self = .dropping(dropping)
      case .passing(var passing):
        passing.upstream = newValue
        self = .passing(passing)
      case .terminal:
        break
      }
    }
  }

  /// Takes the upstream's subscription; `false` when the caller must cancel it.
  mutating func subscribeUpstream(_ subscription: any Subscription) -> Bool {
    guard case .awaiting = upstreamLink else { return false }
    upstreamLink = .subscribed(subscription)
    return true
  }

  func receiveValue() -> ValueAction {
    switch self {
    case .dropping: .drop
    case .passing(let passing): .deliver(passing.downstream)
    case .terminal: .ignore
    }
  }

  /// The subscription to pass the downstream's demand to, once it arrived.
  var upstreamSubscription: (any Subscription)? { upstreamLink?.subscription }

  /// Ends the subscription (upstream completion or `cancel()`); `nil` if it already ended.
  mutating func end() -> Released? {
    defer { self = .terminal }
    switch self {
    case .dropping(let dropping):
      return Released(
        downstream: dropping.downstream,
        upstream: dropping.upstream.subscription,
        other: dropping.other
      )
    case .passing(let passing):
      return Released(downstream: passing.downstream, upstream: passing.upstream.subscription)
    case .terminal:
      return nil
    }
  }

  /// Takes the other publisher's subscription; `false` when the caller must cancel it.
  mutating func subscribeOther(_ subscription: any Subscription) -> Bool {
    guard case .dropping(var dropping) = self, dropping.other == nil else { return false }
    dropping.other = subscription
    self = .dropping(dropping)
    return true
  }

  /// The other publisher sent a value: values pass from now on. Returns the other's
  /// subscription, which the caller cancels.
  mutating func trigger() -> (any Subscription)? {
    guard case .dropping(let dropping) = self else { return nil }
    self = .passing(Passing(downstream: dropping.downstream, upstream: dropping.upstream))
    return dropping.other
  }

  /// The other publisher completed: before its first value this ends the subscription (the
  /// caller cancels the upstream and sends the completion); afterwards it changes nothing.
  mutating func otherCompleted() -> Released? {
    guard case .dropping = self else { return nil }
    return end()
  }
}
