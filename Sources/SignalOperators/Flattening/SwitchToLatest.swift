public import StreamCore

extension Publisher where Output: Publisher, Output.Failure == Failure {
  /// Publishes the values of the most recent publisher this publisher sent, cancelling the one
  /// before.
  ///
  /// ```swift
  /// searchText
  ///   .map { query in search(query) }
  ///   .switchToLatest()
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// The operator requests unlimited publishers from this publisher. Each new one replaces the
  /// current one, which is cancelled; values the replaced one still sends are dropped. Demand
  /// the downstream requested and did not get yet is requested from the new publisher. The
  /// stream finishes once this publisher and the current inner publisher have finished; a
  /// failure of either cancels the other and goes downstream.
  ///
  /// > Thread safety: Values go downstream one at a time, on the thread that sent them or on
  /// > the thread already delivering. `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Returns: A publisher of the latest inner publisher's values.
  public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
    Publishers.SwitchToLatest(upstream: self)
  }
}

extension Publishers {
  /// A publisher that publishes the values of the latest publisher its upstream sent.
  ///
  /// ```swift
  /// let results = Publishers.SwitchToLatest(upstream: queries.map { search($0) })
  /// ```
  ///
  /// See ``StreamCore/Publisher/switchToLatest()-8nhug``. The subscription is described as
  /// `"SwitchToLatest"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
  where P == Upstream.Output, P.Failure == Upstream.Failure {
    public typealias Output = P.Output
    public typealias Failure = P.Failure

    /// The publisher of publishers.
    public let upstream: Upstream

    /// Creates a publisher of the latest inner publisher's values.
    ///
    /// - Parameter upstream: The publisher of publishers.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      subscriber.receive(subscription: inner)
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.SwitchToLatest: Sendable where Upstream: Sendable {}

extension Publishers.SwitchToLatest {
  /// ```
  /// upstream sends P --> generation += 1, cancel the current inner, subscribe P
  /// inner value (current generation, with demand) --> deliver, or queue while another thread
  ///   delivers; a switch drops the queue and gives its demand back
  /// upstream finished + no inner --> .finished
  /// any failure --> failing (`done`, `completion` set): nothing more accepted, the rest
  ///   cancelled, the queue kept; the delivering thread delivers it (its demand was taken when
  ///   each value was queued, and a switch had dropped any older inner's), then the failure
  /// cancel() --> done, `completion` nil: everything dropped, nothing more delivered
  /// ```
  // Sendable: all mutable state is guarded by `lock`; the downstream is called only by the
  // thread that set `draining`, the upstream and inners outside the lock.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = P

    private enum DrainStep {
      case value(Downstream, Output)
      case complete(Downstream, Subscribers.Completion<Failure>)
      case stop
    }

    private let lock = Lock()
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var upstreamSubscribed = false
    private var upstreamFinished = false
    /// The current inner's subscription, once it arrived.
    private var current: (any Subscription)?
    /// The current inner was subscribed and has not finished.
    private var innerActive = false
    private var generation = 0
    /// Requested by the downstream and not yet taken by a value.
    private var demand = Subscribers.Demand.none
    /// A value is moved out of its slot (leaving `nil`) when it is delivered, so clearing the
    /// queue never releases a delivered value under the lock.
    private var queue: [Output?] = []
    private var head = 0
    private var draining = false
    private var completion: Subscribers.Completion<Failure>?
    private var done = false

    init(downstream: Downstream) {
      self.downstream = downstream
    }

    var description: String { "SwitchToLatest" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }

    // MARK: Upstream

    func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard !done, !upstreamSubscribed else { return false }
        upstreamSubscribed = true
        upstream = subscription
        return true
      }
      guard accepted else { return subscription.cancel() }
      subscription.request(.unlimited)
    }

    func receive(_ input: P) -> Subscribers.Demand {
      let switched = lock.withLock { () -> (Int, (any Subscription)?, [Output?])? in
        guard !done else { return nil }
        generation += 1
        innerActive = true
        let dropped = queue[head...].count
        demand += dropped
        defer {
          queue = []
          head = 0
        }
        return (generation, current.take(), queue)
      }
      guard let (number, replaced, dropped) = switched else { return .none }
      replaced?.cancel()
      _ = dropped
      input.subscribe(Side(inner: self, generation: number))
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      if case .failure(let error) = completion { return fail(error, fromInner: false) }
      let (released, drains) = lock.withLock { () -> ((any Subscription)?, Bool) in
        guard !done else { return (nil, false) }
        upstreamFinished = true
        return (upstream.take(), finishIfIdle())
      }
      _ = released
      if drains { drain(.none) }
    }

    /// Sets `.finished` as the completion if nothing is left to wait for, and returns whether
    /// the caller is to deliver it. Call it under `lock`.
    private func finishIfIdle() -> Bool {
      guard upstreamFinished, !innerActive, completion == nil else { return false }
      completion = .finished
      guard !draining else { return false }
      draining = true
      return true
    }

    // MARK: Inner publishers

    fileprivate func innerSubscribed(_ number: Int, _ subscription: any Subscription) {
      let request = lock.withLock { () -> Subscribers.Demand? in
        guard !done, number == generation, current == nil else { return nil }
        current = subscription
        return demand
      }
      guard let request else { return subscription.cancel() }
      if request > 0 { subscription.request(request) }
    }

    fileprivate func innerValue(_ number: Int, _ value: Output) {
      let target = lock.withLock { () -> Downstream? in
        guard !done, number == generation, demand > 0, let downstream else { return nil }
        demand -= 1
        guard !draining else {
          queue.append(value)
          return nil
        }
        draining = true
        return downstream
      }
      guard let target else { return }
      drain(target.receive(value))
    }

    fileprivate func innerFinished(_ number: Int) {
      let (released, drains) = lock.withLock { () -> ((any Subscription)?, Bool) in
        guard !done, number == generation else { return (nil, false) }
        innerActive = false
        return (current.take(), finishIfIdle())
      }
      _ = released
      if drains { drain(.none) }
    }

    fileprivate func innerFailed(_ number: Int, _ error: Failure) {
      let isCurrent = lock.withLock { !done && number == generation }
      if isCurrent { fail(error, fromInner: true) }
    }

    // MARK: Downstream

    /// Delivers queued values, then the completion once due; run only by the thread that set
    /// `draining`. `more` is the demand the last delivery returned.
    private func drain(_ more: Subscribers.Demand) {
      var more = more
      while true {
        let (step, topUp) = lock.withLock { () -> (DrainStep, (any Subscription)?) in
          if done {
            // Failing: the queued values were sent before the failure and go first.
            if completion != nil, head < queue.count, let downstream {
              return (.value(downstream, dequeue()), nil)
            }
            draining = false
            guard let completion = completion.take(), let downstream = downstream.take() else {
              return (.stop, nil)
            }
            return (.complete(downstream, completion), nil)
          }
          let topUp = more > 0 ? current : nil
          demand += more
          if head < queue.count, let downstream {
            return (.value(downstream, dequeue()), topUp)
          }
          if let completion, let downstream {
            done = true
            self.completion = nil
            self.downstream = nil
            return (.complete(downstream, completion), topUp)
          }
          draining = false
          return (.stop, topUp)
        }
        if let topUp { topUp.request(more) }
        switch step {
        case .stop:
          return
        case .complete(let downstream, let completion):
          downstream.receive(completion: completion)
          return
        case .value(let downstream, let value):
          more = downstream.receive(value)
        }
      }
    }

    /// Takes the next queued value. Call it under `lock` with the queue not empty.
    private func dequeue() -> Output {
      guard let value = queue[head].take() else {
        preconditionFailure("SwitchToLatest: an undelivered slot is empty")
      }
      head += 1
      if head == queue.count {
        queue.removeAll(keepingCapacity: true)
        head = 0
      }
      return value
    }

    /// Fails the stream: nothing more is accepted and the rest is cancelled; the queued values,
    /// sent before the failure, go down first (see `drain`), then the failure.
    private func fail(_ error: Failure, fromInner: Bool) {
      let released = lock.withLock {
        () -> (upstream: (any Subscription)?, inner: (any Subscription)?, drains: Bool)? in
        guard !done else { return nil }
        done = true
        completion = .failure(error)
        let drains = !draining
        draining = true
        return (upstream.take(), current.take(), drains)
      }
      guard let released else { return }
      if fromInner { released.upstream?.cancel() } else { released.inner?.cancel() }
      if released.drains { drain(.none) }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let subscription = lock.withLock { () -> (any Subscription)? in
        guard !done else { return nil }
        self.demand += demand
        return current
      }
      subscription?.request(demand)
    }

    func cancel() {
      let released = lock.withLock {
        () -> (
          (any Subscription)?, (any Subscription)?, Downstream?, [Output?],
          Subscribers.Completion<Failure>?
        ) in
        done = true
        defer {
          queue = []
          head = 0
        }
        return (upstream.take(), current.take(), downstream.take(), queue, completion.take())
      }
      released.0?.cancel()
      released.1?.cancel()
    }

    /// The subscriber of one inner publisher, tagged with its generation.
    struct Side: Subscriber, CustomStringConvertible {
      typealias Input = Output
      typealias Failure = P.Failure

      let inner: Inner
      let generation: Int
      let combineIdentifier = CombineIdentifier()

      var description: String { "SwitchToLatest" }

      func receive(subscription: any Subscription) {
        inner.innerSubscribed(generation, subscription)
      }

      func receive(_ input: Output) -> Subscribers.Demand {
        inner.innerValue(generation, input)
        return .none
      }

      func receive(completion: Subscribers.Completion<P.Failure>) {
        switch completion {
        case .finished: inner.innerFinished(generation)
        case .failure(let error): inner.innerFailed(generation, error)
        }
      }
    }
  }
}
