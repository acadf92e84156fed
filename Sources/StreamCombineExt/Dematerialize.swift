import SignalOperators
public import StreamCore

extension Publisher where Output: EventConvertible, Failure == Never {
  /// Turns a publisher of ``MaterializedEvent`` values back into the publisher they describe.
  ///
  /// ```swift
  /// let events = [MaterializedEvent<Int, TestError>.value(1), .failure(TestError()), .value(2)].publisher
  /// let cancellable = events.dematerialize().sink(
  ///   receiveCompletion: { print($0) },  // failure(Boom)
  ///   receiveValue: { print($0) }        // 1
  /// )
  /// ```
  ///
  /// `.value` events are published as values, with the subscriber's own demand. The first
  /// `.failure` or `.finished` event cancels the upstream and ends the publisher with that
  /// completion; later events are ignored. An upstream that finishes without such an event
  /// finishes the publisher.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Dematerialize``.
  ///
  /// - Returns: A publisher of the values and completion the events describe.
  public func dematerialize() -> Publishers.Dematerialize<Self> {
    Publishers.Dematerialize(upstream: self)
  }
}

extension Publishers {
  /// A publisher that turns the upstream's ``MaterializedEvent`` values back into values and a completion.
  ///
  /// ```swift
  /// let plain = Publishers.Dematerialize(upstream: [1, 2].publisher.materialize())
  /// // 1, 2, then the finish
  /// ```
  ///
  /// Made by ``StreamCore/Publisher/dematerialize()``. The subscription's description is
  /// `"Dematerialize"`; requests go straight to the upstream. A struct here; CombineExt's is a
  /// class.
  ///
  /// > Thread safety: Values and the completion are delivered on the upstream's thread.
  /// > `request(_:)` and `cancel()` are safe from any thread.
  public struct Dematerialize<Upstream: Publisher>: Publisher
  where Upstream.Output: EventConvertible, Upstream.Failure == Never {
    public typealias Output = Upstream.Output.Output
    public typealias Failure = Upstream.Output.Failure

    /// The publisher of events.
    public let upstream: Upstream

    /// Creates a publisher of the values and completion that `upstream`'s events describe.
    ///
    /// - Parameter upstream: The publisher of events.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(DematerializeInner<Upstream.Output, S>(downstream: subscriber))
    }
  }
}

extension Publishers.Dematerialize: Sendable where Upstream: Sendable {}

/// The state of a dematerialize subscription.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --completion event / upstream finish / cancel()--> terminal
/// ```
enum DematerializeState<Downstream: Subscriber> {
  /// What ending lets go of, to call and release after the lock.
  struct Ended {
    let upstream: (any Subscription)?
    let downstream: Downstream?
  }

  case awaitingSubscription(Downstream)
  case active(upstream: any Subscription, downstream: Downstream)
  case terminal

  /// Returns the subscriber to hand the subscription to, or `nil`: cancel the new one.
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = self else { return nil }
    self = .active(upstream: subscription, downstream: downstream)
    return downstream
  }

  /// The subscriber to deliver a value to, while active.
  var activeDownstream: Downstream? {
    guard case .active(_, let downstream) = self else { return nil }
    return downstream
  }

  var activeUpstream: (any Subscription)? {
    guard case .active(let upstream, _) = self else { return nil }
    return upstream
  }

  /// Ends the subscription, handing back what it held.
  mutating func end() -> Ended {
    let previous = self
    self = .terminal
    switch previous {
    case .active(let upstream, let downstream):
      return Ended(upstream: upstream, downstream: downstream)
    case .awaitingSubscription(let downstream):
      return Ended(upstream: nil, downstream: downstream)
    case .terminal:
      return Ended(upstream: nil, downstream: nil)
    }
  }
}

/// The subscription of `dematerialize()`.
// Sendable: `state` is guarded by `lock`; the upstream and downstream are called after it.
final class DematerializeInner<Item: EventConvertible, Downstream: Subscriber>: Subscriber,
  Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
where Downstream.Input == Item.Output, Downstream.Failure == Item.Failure {
  typealias Input = Item
  typealias Failure = Never

  private let lock = Lock()
  private var state: DematerializeState<Downstream>

  init(downstream: Downstream) {
    state = .awaitingSubscription(downstream)
  }

  var description: String { "Dematerialize" }

  /// The `downstream` (`nil` once released), whether it has `finished`, and the
  /// `upstreamSubscription`.
  var customMirror: Mirror {
    let (downstream, upstream, finished) = lock.withLock {
      () -> (Downstream?, (any Subscription)?, Bool) in
      switch state {
      case .awaitingSubscription(let downstream): (downstream, nil, false)
      case .active(let upstream, let downstream): (downstream, upstream, false)
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

  func receive(_ input: Item) -> Subscribers.Demand {
    switch input.event {
    case .value(let value):
      guard let downstream = lock.withLock({ state.activeDownstream }) else { return .none }
      return downstream.receive(value)
    case .failure(let failure):
      finish(.failure(failure), cancellingUpstream: true)
    case .finished:
      finish(.finished, cancellingUpstream: true)
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    finish(.finished, cancellingUpstream: false)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    lock.withLock { state.activeUpstream }?.request(demand)
  }

  func cancel() {
    lock.withLock { state.end() }.upstream?.cancel()
  }

  private func finish(
    _ completion: Subscribers.Completion<Item.Failure>,
    cancellingUpstream: Bool
  ) {
    let ended = lock.withLock { state.end() }
    // Only an active subscription has an upstream; an ended one has nothing to deliver.
    guard let upstream = ended.upstream, let downstream = ended.downstream else { return }
    if cancellingUpstream { upstream.cancel() }
    downstream.receive(completion: completion)
  }
}
