import SignalOperators
public import StreamCore

extension Publisher {
  /// Mirrors whichever of this publisher and `other` sends something first, a value or a
  /// completion, and cancels the other.
  ///
  /// ```swift
  /// let cache = PassthroughSubject<Data, Never>()
  /// let network = PassthroughSubject<Data, Never>()
  /// let cancellable = cache.amb(network).sink { show($0) }
  /// network.send(fresh)   // network wins: cache is cancelled; shows fresh
  /// cache.send(stale)     // ignored
  /// ```
  ///
  /// Both publishers are subscribed before the subscriber gets its subscription, so what it
  /// requests, or sends to them, from inside `receive(subscription:)` already counts. Until one
  /// of them has sent something, each request of the subscriber is passed to both, so neither
  /// waits for demand the other got; the first value or completion decides, the other is
  /// cancelled at once, and a value it sends meanwhile is dropped. From then on requests go to
  /// the winner only. Since no value is ever held back, the subscriber never gets more than it
  /// asked for, and a race that needs values starts only when the subscriber asks for some. A
  /// completion that decides the race before the subscriber has its subscription is delivered
  /// right after it.
  ///
  /// <!-- marbles:amb -->
  /// Marble diagram of `amb(other)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   ---a-b-|
  /// other   --1-2--3|
  /// output  --1-2--3|
  /// ```
  ///
  /// ![Marble diagram of amb(other)](marble-amb)
  /// <!-- /marbles:amb -->
  ///
  /// > Thread safety: The two publishers may send from any threads at once; exactly one wins,
  /// > and nothing of the other reaches the subscriber.
  ///
  /// - Parameter other: The publisher racing this one.
  /// - Returns: A publisher that mirrors the first of the two to send.
  public func amb<Other: Publisher>(_ other: Other) -> Publishers.Amb<Self, Other>
  where Other.Output == Output, Other.Failure == Failure {
    Publishers.Amb(first: self, second: other)
  }

  /// Mirrors whichever of this publisher and `others` sends something first, and cancels the
  /// rest.
  ///
  /// ```swift
  /// let cancellable = primary.amb(with: mirror1, mirror2).sink { show($0) }
  /// ```
  ///
  /// Built as a chain of ``StreamCore/Publisher/amb(_:)``, which describes the race.
  ///
  /// <!-- marbles:amb -->
  /// Marble diagram of `amb(other)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   ---a-b-|
  /// other   --1-2--3|
  /// output  --1-2--3|
  /// ```
  ///
  /// ![Marble diagram of amb(other)](marble-amb)
  /// <!-- /marbles:amb -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/amb(_:)``.
  ///
  /// - Parameter others: The publishers racing this one.
  /// - Returns: A publisher that mirrors the first of all of them to send.
  public func amb<Other: Publisher>(with others: Other...) -> AnyPublisher<Output, Failure>
  where Other.Output == Output, Other.Failure == Failure {
    amb(with: others)
  }

  /// Mirrors whichever of this publisher and the publishers of `others` sends something first,
  /// and cancels the rest.
  ///
  /// ```swift
  /// let cancellable = primary.amb(with: mirrors).sink { show($0) }
  /// ```
  ///
  /// Built as a chain of ``StreamCore/Publisher/amb(_:)``, which describes the race.
  ///
  /// <!-- marbles:amb -->
  /// Marble diagram of `amb(other)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   ---a-b-|
  /// other   --1-2--3|
  /// output  --1-2--3|
  /// ```
  ///
  /// ![Marble diagram of amb(other)](marble-amb)
  /// <!-- /marbles:amb -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/amb(_:)``.
  ///
  /// - Parameter others: The publishers racing this one.
  /// - Returns: A publisher that mirrors the first of all of them to send.
  public func amb<Others: Collection>(with others: Others) -> AnyPublisher<Output, Failure>
  where
    Others.Element: Publisher,
    Others.Element.Output == Output,
    Others.Element.Failure == Failure
  {
    others.reduce(eraseToAnyPublisher()) { raced, next in
      raced.amb(next).eraseToAnyPublisher()
    }
  }
}

extension Collection where Element: Publisher {
  /// Mirrors whichever publisher of the collection sends something first, and cancels the rest.
  ///
  /// ```swift
  /// let cancellable = [primary, mirror1, mirror2].amb().sink { show($0) }
  /// ```
  ///
  /// An empty collection gives a publisher that finishes at once; one publisher is mirrored as
  /// it is. Otherwise as ``StreamCore/Publisher/amb(_:)``.
  ///
  /// <!-- marbles:amb -->
  /// Marble diagram of `amb(other)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   ---a-b-|
  /// other   --1-2--3|
  /// output  --1-2--3|
  /// ```
  ///
  /// ![Marble diagram of amb(other)](marble-amb)
  /// <!-- /marbles:amb -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/amb(_:)``.
  ///
  /// - Returns: A publisher that mirrors the first publisher of the collection to send.
  public func amb() -> AnyPublisher<Element.Output, Element.Failure> {
    guard let first else { return Empty().eraseToAnyPublisher() }
    return first.amb(with: dropFirst())
  }
}

extension Publishers {
  /// A publisher that mirrors whichever of two publishers sends something first.
  ///
  /// ```swift
  /// let fastest = Publishers.Amb(first: cache, second: network)
  /// ```
  ///
  /// Made by ``StreamCore/Publisher/amb(_:)``, which describes the race and its demand. `first`
  /// is subscribed first, then `second` (not at all when `first` completed while being
  /// subscribed), then the subscriber gets its subscription. The subscription is described as
  /// `"Amb"`.
  ///
  /// > Thread safety: The two publishers may send from any threads at once; exactly one wins.
  public struct Amb<First: Publisher, Second: Publisher>: Publisher
  where First.Output == Second.Output, First.Failure == Second.Failure {
    public typealias Output = First.Output
    public typealias Failure = First.Failure

    /// The first publisher of the race.
    public let first: First
    /// The second publisher of the race.
    public let second: Second

    /// Creates a publisher that mirrors whichever of `first` and `second` sends first.
    ///
    /// > Thread safety: A value type; the publisher may be subscribed from any thread.
    ///
    /// - Parameters:
    ///   - first: The first publisher of the race.
    ///   - second: The second publisher of the race.
    public init(first: First, second: Second) {
      self.first = first
      self.second = second
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = AmbInner(downstream: subscriber)
      // Both before the subscriber gets its subscription, as in CombineExt: what it sends from
      // inside `receive(subscription:)` reaches them.
      first.subscribe(AmbSide(inner: inner, side: .first))
      if inner.isRacing {
        second.subscribe(AmbSide(inner: inner, side: .second))
      }
      inner.start()
    }
  }
}

extension Publishers.Amb: Sendable where First: Sendable, Second: Sendable {}

extension Publishers.Amb: Equatable where First: Equatable, Second: Equatable {}

/// The subscriber to one publisher of an `amb`: forwards everything to the subscription, naming
/// its side.
struct AmbSide<Downstream: Subscriber>: Subscriber {
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  let inner: AmbInner<Downstream>
  let side: AmbRacer
  let combineIdentifier = CombineIdentifier()

  func receive(subscription: any Subscription) {
    inner.receive(subscription: subscription, from: side)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    inner.receive(input, from: side)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    inner.receive(completion: completion, from: side)
  }
}

/// The subscription of `amb`. No drain is needed: only the winner delivers, and its calls
/// never overlap; the decision is made under the lock.
// Sendable: `state` is guarded by `lock`; the publishers and the subscriber are called after it.
final class AmbInner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
  private let lock = Lock()
  private var state: AmbState<Downstream>

  init(downstream: Downstream) {
    state = .racing(AmbState.Racing(downstream: downstream))
  }

  var description: String { "Amb" }

  /// The `downstream` (`nil` once released), the `winner` (`nil` while racing and after the
  /// end), and the demand `requested` of both sides while racing.
  var customMirror: Mirror {
    let (downstream, winner, requested) = lock.withLock {
      () -> (Downstream?, AmbRacer?, Subscribers.Demand) in
      switch state {
      case .racing(let racing): (racing.downstream, nil, racing.requested)
      case .won(let won): (won.downstream, won.side, .none)
      case .ended(let ended): (ended.downstream, nil, .none)
      case .terminal: (nil, nil, .none)
      }
    }
    return Mirror(
      self,
      children: [
        "downstream": downstream as Any, "winner": winner as Any, "requested": requested,
      ]
    )
  }

  var playgroundDescription: Any { description }

  /// Whether no publisher has won yet and the subscription goes on.
  var isRacing: Bool {
    lock.withLock {
      if case .racing = state { return true }
      return false
    }
  }

  /// Hands the subscriber its subscription, once both sides are subscribed; then delivers a
  /// completion that ended the race before.
  func start() {
    guard let downstream = lock.withLock({ state.start() }) else { return }
    downstream.receive(subscription: self)
    guard let ended = lock.withLock({ state.takeEnding() }) else { return }
    ended.downstream.receive(completion: ended.completion)
  }

  func receive(subscription: any Subscription, from side: AmbRacer) {
    guard let demand = lock.withLock({ state.subscribed(subscription, side: side) }) else {
      subscription.cancel()
      return
    }
    if demand > .none { subscription.request(demand) }
  }

  func receive(_ input: Downstream.Input, from side: AmbRacer) -> Subscribers.Demand {
    guard let delivery = lock.withLock({ state.receiveValue(from: side) }) else { return .none }
    delivery.loser?.cancel()
    return delivery.downstream?.receive(input) ?? .none
  }

  func receive(completion: Subscribers.Completion<Downstream.Failure>, from side: AmbRacer) {
    let ending = lock.withLock { state.receiveCompletion(completion, from: side) }
    guard let ending else { return }
    ending.loser?.cancel()
    ending.downstream?.receive(completion: completion)  // `nil`: delivered by `start()`
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let targets = lock.withLock { state.request(demand) }
    targets.first?.request(demand)
    // A synchronous `first` may have won (and cancelled `second`) inside that request.
    if let second = targets.second, lock.withLock({ state.admits(.second) }) {
      second.request(demand)
    }
  }

  func cancel() {
    let cancelled = lock.withLock { state.cancel() }
    cancelled.first?.cancel()
    cancelled.second?.cancel()
  }
}
