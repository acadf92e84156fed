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

    @inlinable
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
  /// The downstream's subscription and the upstream's subscriber; each inner publisher gets an
  /// `InnerSubscriber` (StreamCore's) tagged with its generation, which reaches this class
  /// through its `InnerEntries`, so an `AnyPublisher` inner subscribes it through code
  /// specialised for the erased publisher. The states and transitions are
  /// ``SwitchToLatestState``'s; this class takes the lock, performs the actions after it, and
  /// calls the downstream only through `gate` (``DeliveryGate``), as Combine calls it under its
  /// downstream lock: the current inner's value goes down at once on its thread, re-entrantly
  /// from inside the downstream, after a delivery under way from another thread. The
  /// completion waits in the state's queue; whichever thread makes it deliverable delivers it
  /// inside the gate, from its outermost pass (`nestedWork`).
  // Sendable: `state` and `downstream` are guarded by `lock`, `nestedWork` by `gate`; the
  // downstream is called inside the gate, the upstream and inners outside the lock.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = P
    @usableFromInline typealias State = SwitchToLatestState<Output, Failure>

    // `@exclusivity(unchecked)` below: each such `var` is touched only under `lock`, or (the
    // flags said to be) only by the thread holding `gate`, whose lock makes access exclusive.
    @usableFromInline let lock = Lock()
    /// Held across every call to the downstream.
    @usableFromInline let gate = DeliveryGate()
    /// The inner publishers' way back into this class (see `InnerEntries`).
    @usableFromInline let entries: InnerEntries<Output, Failure>
    @usableFromInline @exclusivity(unchecked) var state = State()
    /// `nil` once the completion was handed to the drain, or after `cancel()`.
    @usableFromInline @exclusivity(unchecked) var downstream: Downstream?
    /// Set by a nested pass through the gate that made something deliverable: the outermost
    /// pass of the same thread drains once its own call returns. Guarded by `gate`.
    @usableFromInline @exclusivity(unchecked) var nestedWork = false

    @inlinable
    init(downstream: Downstream) {
      self.downstream = downstream
      self.entries = InnerEntries(
        name: "SwitchToLatest",
        subscribedEntry: { owner, tag, subscription in
          unsafeDowncast(owner, to: Inner.self).innerSubscribed(tag.generation, subscription)
        },
        subscribedObjectEntry: { owner, tag, subscription in
          unsafeDowncast(owner, to: Inner.self).innerSubscribed(tag.generation, subscription)
        },
        valueEntry: { owner, tag, value in
          unsafeDowncast(owner, to: Inner.self).innerValue(tag.generation, value)
        },
        completionEntry: { owner, tag, completion in
          let inner = unsafeDowncast(owner, to: Inner.self)
          switch completion {
          case .finished: inner.innerFinished(tag.generation)
          case .failure(let error): inner.innerFailed(tag.generation, error)
          }
        }
      )
    }

    @usableFromInline
    var description: String { "SwitchToLatest" }

    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: [:]) }

    @usableFromInline
    var playgroundDescription: Any { description }

    // MARK: Upstream

    @inlinable
    func receive(subscription: any Subscription) {
      perform(lock.withLock { state.upstreamSubscribed(subscription) })
    }

    @inlinable
    func receive(_ input: P) -> Subscribers.Demand {
      let action = lock.withLock { state.switchInner() }
      let generation = action.subscribe
      perform(action)
      if let generation {
        input.receive(
          subscriber: InnerSubscriber(
            owner: self,
            entries: entries,
            tag: InnerTag(slot: 0, generation: generation)
          )
        )
      }
      return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      switch completion {
      case .finished: perform(lock.withLock { state.upstreamFinished() })
      case .failure(let error): perform(lock.withLock { state.fail(error, generation: nil) })
      }
    }

    // MARK: Inner publishers

    @inlinable
    func innerSubscribed(_ generation: Int, _ subscription: any Subscription) {
      perform(lock.withLock { state.innerSubscribed(generation, subscription) })
    }

    @inlinable
    func innerValue(_ generation: Int, _ value: Output) -> Subscribers.Demand {
      gate.enter(as: ThreadID.current) { outermost in
        var target: Downstream?
        let beyondDemand = lock.withLock { () -> Bool in
          if state.isBeyondDemand(generation) { return true }
          if state.innerValue(generation) { target = downstream }
          return false
        }
        // As Combine: a publisher that sends more than it was asked for is a programming error.
        precondition(
          !beyondDemand,
          "switchToLatest: the current publisher sent a value beyond the demand requested from it"
        )
        var returned = Subscribers.Demand.none
        if let target {
          // As Combine: what the downstream returns is what the inner is asked for.
          returned = target.receive(value)
          if returned > .none { lock.withLock { state.delivered(adding: returned) } }
        }
        if outermost, nestedWork { drain() }
        return returned
      }
    }

    @inlinable
    func innerFinished(_ generation: Int) {
      trapIfAwaitingSubscription(generation)
      perform(lock.withLock { state.innerFinished(generation) })
    }

    @usableFromInline
    func innerFailed(_ generation: Int, _ error: Failure) {
      trapIfAwaitingSubscription(generation)
      perform(lock.withLock { state.fail(error, generation: generation) })
    }

    /// As Combine: the current publisher completing before it sent its subscription is a
    /// programming error.
    @usableFromInline
    func trapIfAwaitingSubscription(_ generation: Int) {
      let awaiting = lock.withLock { state.isAwaitingSubscription(generation) }
      precondition(
        !awaiting,
        "switchToLatest: the current publisher completed before sending its subscription"
      )
    }

    // MARK: Downstream

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      perform(lock.withLock { state.request(demand) })
    }

    @usableFromInline
    func cancel() {
      let (action, released) = lock.withLock { (state.cancel(), downstream.take()) }
      perform(action)
      _ = released
    }

    /// Performs what a transition decided, after the lock; what it released goes with it.
    @inlinable
    func perform(_ action: consuming State.Action) {
      action.cancel.cancel()
      if let request = action.request { request.request(action.demand) }
      if action.drains { deliverPending() }
    }

    /// Delivers what was made deliverable: at once from the outermost pass through the gate,
    /// after the subscriber's call returns from a nested one.
    @usableFromInline
    func deliverPending() {
      gate.drain(as: ThreadID.current, drain) { nestedWork = true }
    }

    /// Delivers the completion once it is due; run only from the outermost pass through the
    /// gate.
    @usableFromInline
    func drain() {
      nestedWork = false
      let due = lock.withLock { () -> (Subscribers.Completion<Failure>, Downstream)? in
        // The completion is the last delivery: the downstream is let go after it.
        guard let completion = state.nextCompletion(), let downstream = downstream.take() else {
          return nil
        }
        return (completion, downstream)
      }
      guard let (completion, downstream) = due else { return }
      downstream.receive(completion: completion)
    }
  }
}
