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
  // Sendable: state is guarded by `lock`; calls out happen outside it, by the draining thread.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    /// ```
    /// awaitingSubscription --receive(subscription:)--> active
    /// active --upstream completion--> ending (drains the last array, then sends it)
    /// active / ending --completion delivered / cancel()--> terminal
    /// ```
    private enum Phase {
      case awaitingSubscription
      case active(any Subscription)
      case ending
      case terminal
    }

    private enum DrainStep {
      case batch(Downstream, [Input])
      case completion(Downstream?, Subscribers.Completion<Failure>)
      case stop
    }

    private let lock = Lock()
    private var phase = Phase.awaitingSubscription
    /// `nil` once terminal.
    private var downstream: Downstream?
    /// The array being filled.
    private var buffer: [Input] = []
    /// Arrays waiting for demand: the last, short one, or full ones an upstream sent beyond
    /// the demand it was given.
    private var ready: [[Input]] = []
    /// What the downstream has requested and not yet received.
    private var demand = Subscribers.Demand.none
    private var pendingCompletion: Subscribers.Completion<Failure>?
    private var draining = false
    private let count: Int

    init(downstream: Downstream, count: Int) {
      self.downstream = downstream
      self.count = count
    }

    func receive(subscription: any Subscription) {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = phase else { return nil }
        phase = .active(subscription)
        return self.downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      let start = lock.withLock { () -> Bool in
        guard case .active = phase else { return false }
        if buffer.isEmpty { buffer.reserveCapacity(Swift.min(count, 1_024)) }
        buffer.append(input)
        guard buffer.count == count else { return false }
        ready.append(buffer)
        buffer = []
        guard !draining, demand > .none else { return false }
        draining = true
        return true
      }
      guard start else { return .none }
      return drain().demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      var discarded: ([Input], [[Input]]) = ([], [])  // released after the lock
      let (released, start) = lock.withLock { () -> (Phase, Bool) in
        let released = phase
        guard case .active = phase else { return (released, false) }
        phase = .ending
        switch completion {
        case .finished:
          if !buffer.isEmpty { ready.append(buffer) }
          buffer = []
        case .failure:
          swap(&discarded.0, &buffer)
          swap(&discarded.1, &ready)
        }
        pendingCompletion = completion
        guard !draining else { return (released, false) }
        draining = true
        return (released, true)
      }
      _ = released  // the upstream subscription, dropped after the lock
      _ = discarded
      if start { _ = drain() }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let (upstream, start) = lock.withLock { () -> ((any Subscription)?, Bool) in
        self.demand += demand
        var upstream: (any Subscription)?
        if case .active(let subscription) = phase { upstream = subscription }
        guard !draining, !ready.isEmpty || pendingCompletion != nil else {
          return (upstream, false)
        }
        draining = true
        return (upstream, true)
      }
      upstream?.request(demand * count)
      guard start else { return }
      let more = drain()
      if more.demand > .none { more.upstream?.request(more.demand) }
    }

    func cancel() {
      let released = lock.withLock {
        () -> (Phase, Downstream?, [Input], [[Input]], Subscribers.Completion<Failure>?) in
        defer {
          phase = .terminal
          buffer = []
          ready = []
          pendingCompletion = nil
        }
        return (phase, downstream.take(), buffer, ready, pendingCompletion)
      }
      if case .active(let subscription) = released.0 {
        subscription.cancel()
      }
    }

    /// Delivers ready arrays while there is demand, then the pending completion. Only the
    /// thread that set `draining` runs it; others add to the state and let this loop deliver.
    ///
    /// - Returns: The demand for upstream values that the downstream returned meanwhile, and the
    ///   upstream to ask it of; `receive(_:)` returns it, other callers request it.
    private func drain() -> (demand: Subscribers.Demand, upstream: (any Subscription)?) {
      var forward = Subscribers.Demand.none
      var upstream: (any Subscription)?
      while true {
        let step = lock.withLock { () -> DrainStep in
          if case .terminal = phase {
            draining = false
            return .stop
          }
          if !ready.isEmpty, demand > .none, let downstream {
            demand -= 1
            return .batch(downstream, ready.removeFirst())
          }
          if ready.isEmpty, let completion = pendingCompletion {
            pendingCompletion = nil
            phase = .terminal
            draining = false
            return .completion(downstream.take(), completion)
          }
          draining = false
          return .stop
        }
        switch step {
        case .batch(let downstream, let batch):
          let more = downstream.receive(batch)
          guard more > .none else { continue }
          let active = lock.withLock { () -> (any Subscription)? in
            demand += more
            guard case .active(let subscription) = phase else { return nil }
            return subscription
          }
          if let active {
            forward += more * count
            upstream = active
          }
        case .completion(let downstream, let completion):
          downstream?.receive(completion: completion)
          return (forward, upstream)
        case .stop:
          return (forward, upstream)
        }
      }
    }

    var description: String { "CollectByCount" }

    var playgroundDescription: Any { description }
  }
}
