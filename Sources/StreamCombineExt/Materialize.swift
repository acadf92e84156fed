import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes the upstream's values and its completion as ``MaterializedEvent`` values, and never fails.
  ///
  /// ```swift
  /// let subject = PassthroughSubject<Int, TestError>()
  /// let cancellable = subject.materialize().sink { print($0) }
  /// subject.send(1)                                   // value(1)
  /// subject.send(completion: .failure(TestError()))   // failure(Boom), then the finish
  /// ```
  ///
  /// Each upstream value becomes `.value`. When the upstream ends, its completion becomes one
  /// more value, `.finished` or `.failure`, and the publisher then finishes. That last event
  /// waits for demand like any value: if the subscriber has none left, it is held until the
  /// next `request(_:)`.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Materialize``.
  ///
  /// - Returns: A publisher of the upstream's events.
  public func materialize() -> Publishers.Materialize<Self> {
    Publishers.Materialize(upstream: self)
  }
}

extension Publisher where Output: EventConvertible, Failure == Never {
  /// Publishes the failure of a materialized publisher, and nothing else.
  ///
  /// ```swift
  /// let subject = PassthroughSubject<Int, TestError>()
  /// let cancellable = subject.materialize().failures().sink { print($0) }
  /// subject.send(1)                                   // nothing
  /// subject.send(completion: .failure(TestError()))   // Boom
  /// ```
  ///
  /// `.value` and `.finished` events are dropped (each dropped value asks the upstream for one
  /// more); the publisher finishes when the upstream does.
  ///
  /// > Thread safety: A `compactMap`: values pass on the upstream's thread.
  ///
  /// - Returns: A publisher of the failures carried by the upstream's events.
  public func failures() -> AnyPublisher<Output.Failure, Never> {
    compactMap { item -> Output.Failure? in
      guard case .failure(let failure) = item.event else { return nil }
      return failure
    }
    .eraseToAnyPublisher()
  }
}

extension Publishers.Materialize {
  /// Publishes the values of the materialized upstream, dropping its failure and finish events.
  ///
  /// ```swift
  /// let subject = PassthroughSubject<Int, TestError>()
  /// let cancellable = subject.materialize().values().sink { print($0) }
  /// subject.send(1)                                   // 1
  /// subject.send(completion: .failure(TestError()))   // finishes; the failure is dropped
  /// ```
  ///
  /// Declared here and on `AnyPublisher`, not on every publisher of events as in CombineExt:
  /// `Publisher.values` is Combine's async sequence in this module, and a property and a method
  /// of the same name can't both extend `Publisher`.
  ///
  /// > Thread safety: A `compactMap`: values pass on the upstream's thread.
  ///
  /// - Returns: A publisher of the upstream's values.
  public func values() -> AnyPublisher<Upstream.Output, Never> {
    compactMap { item -> Upstream.Output? in
      guard case .value(let value) = item else { return nil }
      return value
    }
    .eraseToAnyPublisher()
  }
}

extension AnyPublisher where Output: EventConvertible, Failure == Never {
  /// Publishes the values carried by a type-erased publisher of events, dropping its failure and
  /// finish events.
  ///
  /// ```swift
  /// let events = [MaterializedEvent<Int, TestError>.value(1), .finished].publisher.eraseToAnyPublisher()
  /// let cancellable = events.values().sink { print($0) }  // 1
  /// ```
  ///
  /// See ``StreamCore/Publishers/Materialize/values()``.
  ///
  /// > Thread safety: A `compactMap`: values pass on the upstream's thread.
  ///
  /// - Returns: A publisher of the values carried by the events.
  public func values() -> AnyPublisher<Output.Output, Never> {
    compactMap { item -> Output.Output? in
      guard case .value(let value) = item.event else { return nil }
      return value
    }
    .eraseToAnyPublisher()
  }
}

extension Publishers {
  /// A publisher of the upstream's values and completion as ``MaterializedEvent`` values.
  ///
  /// ```swift
  /// let events = Publishers.Materialize(upstream: [1, 2].publisher)
  /// // value(1), value(2), finished, then the finish
  /// ```
  ///
  /// Made by ``StreamCore/Publisher/materialize()``. The subscription's description is
  /// `"Materialize"`. Requests go straight to the upstream; the completion event is held until
  /// the subscriber has demand for it.
  ///
  /// > Thread safety: Values are delivered on the upstream's thread; the completion event on the
  /// > upstream's thread, or on the thread whose `request(_:)` makes room for it. `request(_:)`
  /// > and `cancel()` are safe from any thread.
  public struct Materialize<Upstream: Publisher>: Publisher {
    public typealias Output = MaterializedEvent<Upstream.Output, Upstream.Failure>
    public typealias Failure = Never

    /// The publisher whose events are published.
    public let upstream: Upstream

    /// Creates a publisher of the events of `upstream`.
    ///
    /// - Parameter upstream: The publisher whose events are published.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(MaterializeInner(downstream: subscriber))
    }
  }
}

extension Publishers.Materialize: Sendable where Upstream: Sendable {}

/// The state of a materialize subscription.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --receive(completion:), demand left--> terminal   (deliver the event, then finish)
/// active --receive(completion:), no demand--> holdingEnd
/// holdingEnd --request(_:)--> terminal                     (deliver the event, then finish)
/// any --cancel()--> terminal
/// ```
enum MaterializeState<Downstream: Subscriber> {
  typealias Item = Downstream.Input

  struct Active {
    var upstream: any Subscription
    var downstream: Downstream
    /// Requested by the subscriber and not yet delivered.
    var demand: Subscribers.Demand
  }

  /// The completion event and who gets it, to deliver (then `.finished`) after the lock.
  struct Ending {
    let downstream: Downstream
    let event: Item
    /// The upstream's subscription, released with the rest.
    let upstream: (any Subscription)?
  }

  /// What `request(_:)` does after the lock.
  enum RequestAction {
    case forward(any Subscription)
    case end(Ending)
    case ignore
  }

  /// What `cancel()` lets go of.
  struct Cancelled {
    let upstream: (any Subscription)?
    let downstream: Downstream?
  }

  case awaitingSubscription(Downstream)
  case active(Active)
  case holdingEnd(Downstream, Item)
  case terminal

  /// Returns the subscriber to hand the subscription to, or `nil`: cancel the new one.
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = self else { return nil }
    self = .active(Active(upstream: subscription, downstream: downstream, demand: .none))
    return downstream
  }

  /// Takes one demand for a value; returns the subscriber to deliver it to, if still active.
  mutating func takeValueDemand() -> Downstream? {
    guard case .active(var active) = self else { return nil }
    self = .terminal
    defer { self = .active(active) }
    if active.demand > .none { active.demand -= 1 }
    return active.downstream
  }

  /// Adds the demand a delivered value returned; `false` if the subscription ended meanwhile.
  mutating func add(_ more: Subscribers.Demand) -> Bool {
    guard case .active(var active) = self else { return false }
    self = .terminal
    defer { self = .active(active) }
    active.demand += more
    return true
  }

  /// The upstream ended with `event`: deliver it now if there is demand, else hold it.
  mutating func end(with event: Item) -> Ending? {
    guard case .active(let active) = self else { return nil }
    if active.demand > .none {
      self = .terminal
      return Ending(downstream: active.downstream, event: event, upstream: active.upstream)
    }
    self = .holdingEnd(active.downstream, event)
    return nil
  }

  mutating func request(_ demand: Subscribers.Demand) -> RequestAction {
    switch self {
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      active.demand += demand
      return .forward(active.upstream)
    case .holdingEnd(let downstream, let event):
      self = .terminal
      return .end(Ending(downstream: downstream, event: event, upstream: nil))
    case .awaitingSubscription, .terminal:
      return .ignore
    }
  }

  mutating func cancel() -> Cancelled {
    let previous = self
    self = .terminal
    switch previous {
    case .active(let active):
      return Cancelled(upstream: active.upstream, downstream: active.downstream)
    case .holdingEnd(let downstream, _), .awaitingSubscription(let downstream):
      return Cancelled(upstream: nil, downstream: downstream)
    case .terminal:
      return Cancelled(upstream: nil, downstream: nil)
    }
  }
}

/// The subscription of `materialize()`: values pass as `.value` events with the subscriber's own
/// demand; the completion becomes one more event, held until there is demand for it.
// Sendable: `state` is guarded by `lock`; the upstream and downstream are called after it.
final class MaterializeInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
  Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
where Downstream.Input == MaterializedEvent<Input, UpstreamFailure>, Downstream.Failure == Never {
  typealias Failure = UpstreamFailure

  private let lock = Lock()
  private var state: MaterializeState<Downstream>

  init(downstream: Downstream) {
    state = .awaitingSubscription(downstream)
  }

  var description: String { "Materialize" }

  /// The `downstream` (`nil` once released), whether it has `finished` (the completion event
  /// held for demand counts as not yet), and the `upstreamSubscription`.
  var customMirror: Mirror {
    let (downstream, upstream, finished) = lock.withLock {
      () -> (Downstream?, (any Subscription)?, Bool) in
      switch state {
      case .awaitingSubscription(let downstream), .holdingEnd(let downstream, _):
        (downstream, nil, false)
      case .active(let active): (active.downstream, active.upstream, false)
      case .terminal: (nil, nil, true)
      }
    }
    return oneToOneMirror(self, downstream: downstream, finished: finished, upstream: upstream)
  }

  var playgroundDescription: Any { description }

  func receive(subscription: any Subscription) {
    guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard let downstream = lock.withLock({ state.takeValueDemand() }) else { return .none }
    let more = downstream.receive(.value(input))
    guard more > .none else { return .none }
    return lock.withLock { state.add(more) } ? more : .none
  }

  func receive(completion: Subscribers.Completion<UpstreamFailure>) {
    let event: MaterializedEvent<Input, UpstreamFailure> =
      switch completion {
      case .finished: .finished
      case .failure(let failure): .failure(failure)
      }
    guard let ending = lock.withLock({ state.end(with: event) }) else { return }
    deliver(ending)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    switch lock.withLock({ state.request(demand) }) {
    case .forward(let upstream): upstream.request(demand)
    case .end(let ending): deliver(ending)
    case .ignore: break
    }
  }

  func cancel() {
    let cancelled = lock.withLock { state.cancel() }
    cancelled.upstream?.cancel()
  }

  private func deliver(_ ending: MaterializeState<Downstream>.Ending) {
    _ = ending.downstream.receive(ending.event)
    ending.downstream.receive(completion: .finished)
  }
}
