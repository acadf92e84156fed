public import StreamCore

extension Publisher {
  /// Collects the upstream's values into arrays of `count` values, and a last, shorter one if
  /// values remain when it finishes.
  ///
  /// ```swift
  /// [1, 2, 3, 4, 5].publisher
  ///   .collect(2)
  ///   .sink { print($0) }  // prints [1, 2], [3, 4], [5]
  /// ```
  ///
  /// Each request for `n` arrays is passed on to the upstream as a request for `n × count`
  /// values (`.unlimited` if that overflows), and the demand the subscriber returns for an
  /// array is passed on the same way. An array goes downstream as soon as it is full. When the
  /// upstream finishes, the values collected so far go downstream as a last array once the
  /// subscriber has demand, then `.finished`. An upstream failure drops them and passes
  /// through at once.
  ///
  /// > Thread safety: Upstream may send from any thread. An array goes downstream on the thread
  /// > that sent its last value, or on the thread whose `request(_:)` made room for it, never
  /// > from two threads at once. `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter count: How many values each array holds; must be greater than zero.
  /// - Returns: A publisher that sends the upstream's values in arrays of `count`.
  @inlinable
  public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
    Publishers.CollectByCount(upstream: self, count: count)
  }
}

extension Publishers {
  /// A publisher that sends its upstream's values in arrays of a given size.
  ///
  /// ```swift
  /// let pairs = Publishers.CollectByCount(upstream: [1, 2, 3, 4].publisher, count: 2)
  /// ```
  ///
  /// See ``StreamCore/Publisher/collect(_:)``.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. `request(_:)` and
  /// > `cancel()` on its subscription are safe from any thread.
  public struct CollectByCount<Upstream: Publisher>: Publisher {
    public typealias Output = [Upstream.Output]
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are collected.
    public let upstream: Upstream

    /// How many values each array holds.
    public let count: Int

    /// Creates the publisher; see ``StreamCore/Publisher/collect(_:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are collected.
    ///   - count: How many values each array holds; must be greater than zero.
    @inlinable
    public init(upstream: Upstream, count: Int) {
      precondition(count > 0, "collect(_:): count must be greater than zero, got \(count)")
      self.upstream = upstream
      self.count = count
    }

    /// Subscribes `subscriber` to arrays of ``count`` values of ``upstream``.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, count: count))
    }
  }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {}

extension Publishers.CollectByCount: Sendable where Upstream: Sendable {}

extension Publishers.CollectByCount {
  /// Decides under `lock`, in ``CollectByCountState``, and acts after it; the thread that claims
  /// the queue's drain delivers the full groups.
  // Sendable: state is guarded by `lock`; calls out happen outside it, by the draining thread.
  fileprivate final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let lock = Lock()
    private var state: CollectByCountState<Downstream>
    private let count: Int

    init(downstream: Downstream, count: Int) {
      state = .awaitingSubscription(downstream)
      self.count = count
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      guard lock.withLock({ state.receive(input, count: count) }) else { return .none }
      return drain().demand  // asked of the upstream as this call's result
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let completed = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      if completed.claimed { _ = drain() }
    }  // the upstream and the values a failure discards are released here, after the lock

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let requested = lock.withLock { state.request(demand) }
      requested.upstream?.request(demand * count)
      guard requested.claimed else { return }
      let more = drain()
      if more.demand > .none { more.upstream?.request(more.demand) }
    }

    func cancel() {
      guard let cancelled = lock.withLock({ state.cancel() }) else { return }
      cancelled.upstream?.cancel()
    }  // the groups, a pending completion and the subscriber are released here

    /// Delivers the ready groups while there is demand, then the completion.
    ///
    /// - Returns: The demand for upstream values that the downstream returned meanwhile, and the
    ///   upstream to ask it of; `receive(_:)` returns it, other callers request it.
    private func drain() -> (demand: Subscribers.Demand, upstream: (any Subscription)?) {
      var more = Subscribers.Demand.none
      var forward = Subscribers.Demand.none
      var upstream: (any Subscription)?
      SerialDrain.run(lock) {
        state.nextStep(adding: more, count: count, forward: &forward, upstream: &upstream)
      } perform: { step in
        switch consume step {
        case .group(let downstream, let group):
          more = downstream.receive(group)
          return true
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return false
        }
      }
      return (forward, upstream)
    }

    var description: String { "CollectByCount" }

    var playgroundDescription: Any { description }
  }
}

/// The state of a `collect(_ count:)` subscription, as data: each transition runs under the
/// operator's lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --a value fills the group--> active (the group is queued for the subscriber)
/// active --upstream completion--> ending (.finished: the short group is queued, then the
///                                  completion; a failure drops what was collected)
/// active / ending --completion delivered / cancel()--> terminal
/// ```
enum CollectByCountState<Downstream: Subscriber> {
  typealias Group = Downstream.Input
  typealias Failure = Downstream.Failure

  /// Before the upstream's subscription arrives.
  case awaitingSubscription(Downstream)
  /// Subscribed: values fill the current group.
  case active(Active)
  /// The upstream is gone; the ready groups, then the completion, are still to go.
  case ending(Outlet)
  /// Completed or cancelled: everything is released.
  case terminal

  /// The subscriber and the groups waiting for its demand.
  typealias Outlet = DeliveryOutlet<Downstream>

  /// What exists while subscribed.
  struct Active {
    /// The upstream's subscription.
    var upstream: any Subscription
    /// The subscriber's end.
    var outlet: Outlet
    /// The group being filled.
    var group: Group
  }

  /// What the upstream's completion lets go of, after the lock.
  struct Completed {
    /// The upstream's subscription (it completed).
    let upstream: any Subscription
    /// The group being filled, which a failure drops.
    let discarded: Group
    /// The full groups a failure drops.
    let discardedGroups: RingBuffer<Group>
    /// Whether the caller claimed the drain.
    let claimed: Bool
  }

  /// What a request hands out.
  struct Requested {
    /// The upstream while subscribed, asked for `count` values per group requested.
    let upstream: (any Subscription)?
    /// Whether the caller claimed the drain.
    let claimed: Bool
  }

  /// What `cancel()` lets go of, after the lock.
  struct Cancelled {
    /// The upstream's subscription to cancel (`nil` once it completed).
    let upstream: (any Subscription)?
    /// The subscriber.
    let downstream: Downstream
    /// The group being filled.
    let group: Group
    /// The ready groups and a completion not yet delivered.
    let remains: DeliveryQueueRemains<Group, Failure>?
  }

  /// One delivery of the drain, performed outside the lock.
  enum Step {
    /// Deliver a full (or the last, short) group.
    case group(Downstream, Group)
    /// Deliver the completion; the state is terminal.
    case completion(Downstream, Subscribers.Completion<Failure>)
  }
}

extension CollectByCountState where Group: RangeReplaceableCollection {
  /// Stores the upstream's subscription; returns the subscriber to hand this subscription to,
  /// or `nil` when the subscription must be cancelled (a second one, or after `cancel()`).
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = self else { return nil }
    self = .active(
      Active(upstream: subscription, outlet: Outlet(downstream), group: Group())
    )
    return downstream
  }

  /// Adds `value` to the group; a full group is queued. `true`: the caller claimed the drain.
  mutating func receive(_ value: Group.Element, count: Int) -> Bool {
    guard case .active(var active) = self else { return false }
    self = .terminal
    defer { self = .active(active) }
    if active.group.isEmpty { active.group.reserveCapacity(Swift.min(count, 1_024)) }
    active.group.append(value)
    guard active.group.count == count else { return false }
    var full = Group()
    swap(&full, &active.group)
    return active.outlet.queue.enqueue(full)
  }

  /// The upstream completed: `.finished` queues the short group before it; a failure drops
  /// everything collected and goes at once.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Completed? {
    guard case .active(var active) = self else { return nil }
    self = .terminal
    var claimed = false
    var discarded = Group()
    var discardedGroups = RingBuffer<Group>()
    switch completion {
    case .finished:
      if !active.group.isEmpty { claimed = active.outlet.queue.enqueue(active.group) }
    case .failure:
      discarded = active.group
      discardedGroups = active.outlet.queue.values.takeAll()
    }
    claimed = active.outlet.queue.finish(completion) || claimed
    self = .ending(active.outlet)
    return Completed(
      upstream: active.upstream,
      discarded: discarded,
      discardedGroups: discardedGroups,
      claimed: claimed
    )
  }

  /// Adds the subscriber's demand, in groups.
  mutating func request(_ demand: Subscribers.Demand) -> Requested {
    switch self {
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      return Requested(upstream: active.upstream, claimed: active.outlet.queue.request(demand))
    case .ending(var outlet):
      self = .terminal
      defer { self = .ending(outlet) }
      return Requested(upstream: nil, claimed: outlet.queue.request(demand))
    case .awaitingSubscription, .terminal:
      return Requested(upstream: nil, claimed: false)
    }
  }

  /// The drain's next step; `nil` after releasing the drain, or once terminal. `more`, the demand
  /// the previous group returned, is added; while subscribed it is also added to `forward`, in
  /// values, for `upstream`.
  mutating func nextStep(
    adding more: Subscribers.Demand,
    count: Int,
    forward: inout Subscribers.Demand,
    upstream: inout (any Subscription)?
  ) -> Step? {
    switch self {
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      if more > .none {
        forward += more * count
        upstream = active.upstream
      }
      switch active.outlet.queue.nextStep(adding: more) {
      case .value(let group)?:
        return .group(active.outlet.downstream, group)
      case .completion?, nil:
        return nil  // an active queue has no completion
      }
    case .ending(var outlet):
      self = .terminal
      switch outlet.queue.nextStep(adding: more) {
      case .value(let group)?:
        self = .ending(outlet)
        return .group(outlet.downstream, group)
      case .completion(let completion, _)?:
        return .completion(outlet.downstream, completion)
      case nil:
        self = .ending(outlet)
        return nil
      }
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Ends everything; `nil` when there is nothing to end.
  mutating func cancel() -> Cancelled? {
    switch self {
    case .active(var active):
      self = .terminal
      return Cancelled(
        upstream: active.upstream,
        downstream: active.outlet.downstream,
        group: active.group,
        remains: active.outlet.queue.cancel()
      )
    case .ending(var outlet):
      self = .terminal
      return Cancelled(
        upstream: nil,
        downstream: outlet.downstream,
        group: Group(),
        remains: outlet.queue.cancel()
      )
    case .awaitingSubscription(let downstream):
      self = .terminal
      return Cancelled(upstream: nil, downstream: downstream, group: Group(), remains: nil)
    case .terminal:
      return nil
    }
  }
}

extension Publishers.CollectByCount.Inner: CustomReflectable {
  /// As Combine's: the `downstream`, the `upstreamSubscription`, the group being filled
  /// (`buffer`) and the group size (`count`). The downstream and the upstream subscription are
  /// `nil` once the subscription ended and let go of them.
  var customMirror: Mirror {
    let (downstream, upstream, buffer) = lock.withLock {
      () -> (Downstream?, (any Subscription)?, [Upstream.Output]) in
      switch state {
      case .awaitingSubscription(let downstream): (downstream, nil, [])
      case .active(let active): (active.outlet.downstream, active.upstream, active.group)
      case .ending(let outlet): (outlet.downstream, nil, [])
      case .terminal: (nil, nil, [])
      }
    }
    return Mirror(
      self,
      children: [
        "downstream": downstream.map { $0 as Any } ?? (nil as Downstream? as Any),
        "upstreamSubscription": upstream as Any, "buffer": buffer, "count": count,
      ]
    )
  }
}
