public import StreamCore

extension Publishers.FlatMap {
  /// The downstream's subscription and the upstream's subscriber; each child gets an
  /// `InnerSubscriber` (StreamCore's), which reaches this class through its `InnerEntries`:
  /// closures made where this class's types are known, so a child's events land in specialised
  /// code even when the child calls its subscriber from unspecialised code. Being one concrete
  /// type, that subscriber also lets an `AnyPublisher` child subscribe it through code
  /// specialised for the erased publisher.
  /// The states and transitions are ``FlatMapState``'s; this class takes the lock, performs the
  /// actions after it, and calls the downstream only through `gate` (``DeliveryGate``), as
  /// Combine calls it under its downstream lock.
  ///
  /// A child's value goes down at once, on the child's thread, when nothing is queued and there
  /// is demand: a child sending from another thread waits for a delivery under way, and one
  /// sending from inside the downstream's `receive(_:)` is delivered re-entrantly. Otherwise
  /// the value is queued; whichever thread makes it deliverable (a request, a
  /// completion) delivers the queue inside the gate, from its outermost pass (`nestedWork`), so that a
  /// request from inside `receive(_:)` never delivers from inside that call. A value from a
  /// `Just` child is taken without subscribing to the child.
  // Sendable: `state` and `box` are guarded by `lock`, `nestedWork` by `gate`; the downstream is
  // called inside the gate, and the upstream, children and transform outside the lock.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Upstream.Output

    @usableFromInline typealias State = FlatMapState<Input, Output, Failure, NewPublisher>

    /// Holds the downstream, so that code running unspecialised reads an optional reference
    /// rather than an `Optional<Downstream>`, which would need a metadata lookup.
    @usableFromInline
    final class Box {
      @usableFromInline let downstream: Downstream

      @inlinable
      init(_ downstream: Downstream) {
        self.downstream = downstream
      }
    }

    /// One step of the drain with the subscriber it goes to, performed outside the lock.
    @usableFromInline
    enum DrainStep {
      case value(Downstream, Output, topUp: (any Subscription)?)
      case completion(
        Downstream,
        Subscribers.Completion<Failure>,
        dropped: RingBuffer<State.Pending>
      )
    }

    // `@exclusivity(unchecked)` below: each such `var` is touched only under `lock`, or (the
    // flags said to be) only by the thread holding `gate`, whose lock makes access exclusive.
    @usableFromInline let lock = Lock()
    /// Held across every call to the downstream.
    @usableFromInline let gate = DeliveryGate()
    /// Set by a nested pass through the gate that made something deliverable: the outermost
    /// pass of the same thread drains once its own call returns. Guarded by `gate`.
    @usableFromInline @exclusivity(unchecked) var nestedWork = false
    /// The children's way back into this class (see `InnerEntries`).
    @usableFromInline let entries: InnerEntries<Output, Failure>
    @usableFromInline let maxPublishers: Subscribers.Demand
    /// `nil` once the completion was handed to the drain, or after `cancel()`.
    @usableFromInline @exclusivity(unchecked) var box: Box?
    @usableFromInline @exclusivity(unchecked) var state: State

    @inlinable
    init(
      downstream: Downstream,
      maxPublishers: Subscribers.Demand,
      transform: @escaping (Input) -> NewPublisher
    ) {
      self.box = Box(downstream)
      self.maxPublishers = maxPublishers
      self.state = State(transform: transform)
      self.entries = InnerEntries(
        name: "FlatMap",
        subscribedEntry: { owner, child, subscription in
          unsafeDowncast(owner, to: Inner.self).childSubscribed(child, subscription)
        },
        subscribedObjectEntry: { owner, child, subscription in
          unsafeDowncast(owner, to: Inner.self).childSubscribed(child, object: subscription)
        },
        valueEntry: { owner, child, value in
          unsafeDowncast(owner, to: Inner.self).offer(value, from: child)
        },
        completionEntry: { owner, child, completion in
          let inner = unsafeDowncast(owner, to: Inner.self)
          switch completion {
          case .finished: inner.childFinished(child)
          case .failure(let error): inner.childFailed(child, error)
          }
        }
      )
    }

    // MARK: Upstream

    @inlinable
    func receive(subscription: any Subscription) {
      guard lock.withLock({ state.receive(subscription: subscription) }) else {
        return subscription.cancel()
      }
      subscription.request(maxPublishers)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      // Folded away once specialised: a `Just` child takes the shortcut below.
      if NewPublisher.self == Just<Output>.self { return receiveJust(input) }
      guard let claim = lock.withLock({ state.claimChild() }) else { return .none }
      claim.transform(input).receive(
        subscriber: InnerSubscriber(owner: self, entries: entries, tag: claim.tag)
      )
      return .none
    }

    /// A `Just` child, without subscribing to it: its value goes down now or is queued, just
    /// as if the child had been asked for one value and had finished right after sending it.
    @inlinable
    func receiveJust(_ input: Input) -> Subscribers.Demand {
      guard let transform = lock.withLock({ state.transformForValue }) else { return .none }
      // `NewPublisher` is `Just<Output>` (checked by the caller).
      let value = unsafeBitCast(transform(input), to: Just<Output>.self).output
      _ = offer(value, from: .just)
      // The child finished: one more publisher may come, unless the stream ended meanwhile. As
      // Combine's, it is requested rather than returned (OpenCombine's
      // `FlatMapTests.testChildSubscribeDeadlock` checks the returned demand is none).
      guard maxPublishers != .unlimited, let upstream = lock.withLock({ state.upstreamToAsk })
      else { return .none }
      upstream.request(.max(1))
      return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      switch completion {
      case .finished:
        finished(lock.withLock { state.upstreamFinished() })
      case .failure(let error):
        failed(lock.withLock { state.fail(error, from: nil) }, upstreamFailed: true)
      }
    }

    // MARK: Children

    @inlinable @inline(__always)
    func childSubscribed(_ child: InnerTag, _ subscription: any Subscription) {
      guard let demand = lock.withLock({ state.childSubscribed(child, subscription) }) else {
        return subscription.cancel()
      }
      subscription.request(demand)
    }

    /// A child's subscription handed as an object: kept without value-witness calls.
    @inlinable @inline(__always)
    func childSubscribed(_ child: InnerTag, object subscription: any Subscription & AnyObject) {
      guard let demand = lock.withLock({ state.childSubscribed(child, object: subscription) })
      else { return subscription.cancel() }
      subscription.request(demand)
    }

    @inlinable @inline(__always)
    func childFinished(_ child: InnerTag) {
      if maxPublishers == .unlimited {
        // The common case only frees the child's slot: nothing to ask or deliver after the lock.
        var quiet = false
        let released = lock.withLock { state.childFinishedQuietly(child, quiet: &quiet) }
        if quiet { return }  // the child's subscription is released here, after the lock
        _ = released
      }
      finished(lock.withLock { state.childFinished(child, maxPublishers: maxPublishers) })
    }

    @usableFromInline
    func childFailed(_ child: InnerTag, _ error: Failure) {
      failed(lock.withLock { state.fail(error, from: child) })
    }

    /// A child's value: delivered now or queued (see ``FlatMapState/receive(_:from:)``), inside
    /// the gate. Returns the top-up to ask the child for: one more after a value delivered now,
    /// unless the child was asked for unlimited values; a queued value's top-up comes with its
    /// delivery.
    @inlinable @inline(__always)
    func offer(_ value: Output, from child: InnerTag) -> Subscribers.Demand {
      gate.enter(as: ThreadID.current) { outermost in
        // Only non-generic types cross the lock: this often runs unspecialised.
        var target: Box?
        let outcome = lock.withLock { () -> FlatMapValueOutcome in
          let outcome = state.receive(value, from: child)
          if case .deliver = outcome { target = box }
          return outcome
        }
        var topUp = Subscribers.Demand.none
        var deliverable = false
        switch outcome {
        case .ignored, .queued:
          break
        case .drain:
          deliverable = true
        case .deliver(let unlimited):
          // Consumed: binding a copy would retain the box a second time.
          guard let target = consume target else {
            preconditionFailure("FlatMap: a delivery after the downstream was released")
          }
          let more = target.downstream.receive(value)
          if more > .none { deliverable = lock.withLock { state.request(more) } }
          if !unlimited { topUp = .max(1) }
        }
        if deliverable { nestedWork = true }
        if outermost, nestedWork { drain() }
        return topUp
      }
    }

    /// Delivers what was made deliverable: at once from the outermost pass through the gate,
    /// after the subscriber's call returns from a nested one.
    @usableFromInline
    func deliverPending() {
      gate.drain(as: ThreadID.current, drain) { nestedWork = true }
    }

    /// Acts on what a `.finished` handed out: asks the upstream for one more publisher, and
    /// delivers `.finished` if it is deliverable.
    // Always inlined: outlined, it cost measurably per child on `flatMapFuture` and
    // `flatMapErased` (Docs/Performance.md).
    @inlinable
    @inline(__always)
    func finished(_ finished: State.Finished) {
      if finished.asksOneMore { finished.upstreamToAsk.request(.max(1)) }
      if finished.claimed { deliverPending() }
    }  // the finished side's subscription and a finished stream's transform are released here

    /// Acts on what a failure handed out: cancels the rest, and delivers the failure (after the
    /// queued values the demand covers) if it is deliverable.
    @usableFromInline
    func failed(_ failed: State.Failed?, upstreamFailed: Bool = false) {
      guard let failed else { return }
      for subscription in failed.cancel { subscription.cancel() }
      if upstreamFailed { lock.withLock { state.childrenCancelled() } }
      if failed.claimed { deliverPending() }
    }  // the failing side's subscription and the transform are released here

    // MARK: Downstream

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      var turning: [any Subscription] = []
      // A request made from inside `receive(_:)` only adds to the demand, as Combine: the
      // children hear of it through what their values return.
      let delivering = gate.isHeld(by: ThreadID.current)
      let deliverable = lock.withLock { () -> Bool in
        let deliverable = state.request(demand)
        if demand == .unlimited, !delivering { turning = state.childrenTurningUnlimited() }
        return deliverable
      }
      if deliverable { deliverPending() }
      // As Combine: each `request(.unlimited)` asks every child for everything, in the order the
      // children were subscribed.
      for subscription in turning { subscription.request(.unlimited) }
    }

    @usableFromInline
    func cancel() {
      var downstream: Box?
      let cancelled = lock.withLock { () -> State.Cancelled? in
        downstream = box.take()  // a delivery under way holds its own reference
        return state.cancel()
      }
      guard let cancelled else { return }
      for subscription in cancelled.cancel { subscription.cancel() }
      _ = downstream
    }  // queued values, a pending failure, the transform and the downstream are released here

    /// Delivers queued values while there is demand, then the completion once it is due; run
    /// only from the outermost pass through the gate.
    @inlinable
    func drain() {
      nestedWork = false
      var more = Subscribers.Demand.none
      SerialDrain.run(lock) { () -> DrainStep? in
        guard let step = state.nextStep(adding: more) else { return nil }
        more = .none
        switch consume step {
        case .value(let value, let topUp):
          guard let downstream = box?.downstream else {
            preconditionFailure("FlatMap: a delivery after the downstream was released")
          }
          return .value(downstream, value, topUp: topUp)
        case .completion(let completion, let dropped):
          // The completion is the last delivery: the downstream is let go after it.
          guard let downstream = box.take()?.downstream else {
            preconditionFailure("FlatMap: a delivery after the downstream was released")
          }
          return .completion(downstream, completion, dropped: dropped)
        }
      } perform: { step in
        switch consume step {
        case .value(let downstream, let value, let topUp):
          more = downstream.receive(value)
          topUp?.request(.max(1))
          return true
        case .completion(let downstream, let completion, let dropped):
          downstream.receive(completion: completion)
          _ = dropped  // the values a failure overtook, released after it
          return false
        }
      }
    }

    @usableFromInline
    var description: String { "FlatMap" }

    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: [:]) }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
