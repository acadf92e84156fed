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
  /// <!-- marbles:switch-to-latest -->
  /// Marble diagram of `switchToLatest()`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// outer   -x---y-----|
  /// x       -a-b-c|
  /// y       -d-e|
  /// output  --a-b-d-e--|
  /// ```
  ///
  /// ![Marble diagram of switchToLatest()](marble-switch-to-latest)
  /// <!-- /marbles:switch-to-latest -->
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
  /// The downstream's subscription and the upstream's subscriber; each inner publisher gets a
  /// ``Side`` tagged with its generation. The states and transitions are
  /// ``SwitchToLatestState``'s; this class takes the lock, performs the actions after it, and
  /// runs the drain (a ``SerialDrain`` in the state's ``DeliveryQueue``).
  // Sendable: all mutable state is guarded by `lock`; the downstream is called only by the
  // thread that claimed the drain, the upstream and inners outside the lock.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = P
    typealias State = SwitchToLatestState<Output, Failure>

    private let lock = Lock()
    @exclusivity(unchecked) private var state = State()
    /// `nil` once the completion was handed to the drain, or after `cancel()`.
    @exclusivity(unchecked) private var downstream: Downstream?

    init(downstream: Downstream) {
      self.downstream = downstream
    }

    var description: String { "SwitchToLatest" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }

    // MARK: Upstream

    func receive(subscription: any Subscription) {
      perform(lock.withLock { state.upstreamSubscribed(subscription) })
    }

    func receive(_ input: P) -> Subscribers.Demand {
      let action = lock.withLock { state.switchInner() }
      let generation = action.subscribe
      perform(action)
      if let generation { input.subscribe(Side(inner: self, generation: generation)) }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      switch completion {
      case .finished: perform(lock.withLock { state.upstreamFinished() })
      case .failure(let error): perform(lock.withLock { state.fail(error, generation: nil) })
      }
    }

    // MARK: Inner publishers

    fileprivate func innerSubscribed(_ generation: Int, _ subscription: any Subscription) {
      perform(lock.withLock { state.innerSubscribed(generation, subscription) })
    }

    fileprivate func innerValue(_ generation: Int, _ value: Output) -> Subscribers.Demand {
      let (beyondDemand, claimed) = lock.withLock { () -> (Bool, Bool) in
        if state.isBeyondDemand(generation) { return (true, false) }
        return (false, state.innerValue(generation, value))
      }
      // As Combine: a publisher that sends more than it was asked for is a programming error.
      precondition(
        !beyondDemand,
        "switchToLatest: the current publisher sent a value beyond the demand requested from it"
      )
      guard claimed else { return .none }
      return drain(returningTopUpsOf: generation)
    }

    fileprivate func innerFinished(_ generation: Int) {
      trapIfAwaitingSubscription(generation)
      perform(lock.withLock { state.innerFinished(generation) })
    }

    fileprivate func innerFailed(_ generation: Int, _ error: Failure) {
      trapIfAwaitingSubscription(generation)
      perform(lock.withLock { state.fail(error, generation: generation) })
    }

    /// As Combine: the current publisher completing before it sent its subscription is a
    /// programming error.
    private func trapIfAwaitingSubscription(_ generation: Int) {
      let awaiting = lock.withLock { state.isAwaitingSubscription(generation) }
      precondition(
        !awaiting,
        "switchToLatest: the current publisher completed before sending its subscription"
      )
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      perform(lock.withLock { state.request(demand) })
    }

    func cancel() {
      let (action, released) = lock.withLock { (state.cancel(), downstream.take()) }
      perform(action)
      _ = released
    }

    /// Performs what a transition decided, after the lock; what it released goes with it.
    private func perform(_ action: consuming State.Action) {
      action.cancel.cancel()
      if let request = action.request { request.request(action.demand) }
      if action.drains { drain() }
    }

    /// Delivers queued values, then the completion; run only by the thread that claimed the
    /// drain. The demand the downstream returns goes to the current inner; when that is the
    /// inner of `sender`, whose `receive(_:)` runs this drain, it is returned (for `receive(_:)`
    /// to return, as Combine) rather than requested.
    @discardableResult
    private func drain(returningTopUpsOf sender: Int? = nil) -> Subscribers.Demand {
      var returned = Subscribers.Demand.none
      var more = Subscribers.Demand.none
      SerialDrain.run(lock) { () -> (State.Delivery, Downstream)? in
        guard let delivery = state.nextDelivery(adding: more) else { return nil }
        more = .none
        // The completion is the last delivery: the downstream is let go after it.
        let target = if case .completion = delivery { downstream.take() } else { downstream }
        guard let target else {
          preconditionFailure("SwitchToLatest: a delivery after the downstream was released")
        }
        return (delivery, target)
      } perform: { step in
        let (delivery, downstream) = step
        switch delivery {
        case .topUp(let current, let demand, let generation):
          if generation == sender {
            returned += demand
          } else {
            current.request(demand)
          }
          return true
        case .value(let value):
          more = downstream.receive(value)
          return true
        case .completion(let completion, let dropped):
          downstream.receive(completion: completion)
          _ = dropped
          return false
        }
      }
      return returned
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
