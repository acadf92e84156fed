public import StreamCore

extension Publishers.FlatMap {
  /// The downstream's subscription and the upstream's subscriber; each child gets an
  /// `InnerSubscriber` (StreamCore's), which reaches this class through its `InnerEntries`:
  /// closures made where this class's types are known, so a child's events land in specialised
  /// code even when the child calls its subscriber from unspecialised code. Being one concrete
  /// type, that subscriber also lets an `AnyPublisher` child subscribe it through code
  /// specialised for the erased publisher.
  /// The states and transitions are ``FlatMapState``'s; this class takes the lock, performs the
  /// actions after it, and runs the drain (a ``SerialDrain`` in the state's ``DeliveryQueue``).
  ///
  /// A child's value goes down at once, on the child's thread, when nobody is delivering,
  /// nothing is queued and there is demand; otherwise it is queued and the thread holding the
  /// drain delivers it. A value from a `Just` child is taken without subscribing to the child.
  // Sendable: all mutable state is guarded by `lock`; the downstream is called only by the
  // thread that claimed the drain, and the upstream, children and transform outside the lock.
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

    @usableFromInline let lock = Lock()
    /// Lets a value delivered at once with unlimited demand give the drain back without a
    /// second lock round trip (see `MergeClaim`, "`flatMap` uses the same word").
    @usableFromInline let claim = MergeClaim(claimed: false)
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
      guard let transform = lock.withLock({ state.transform }) else { return .none }
      // `NewPublisher` is `Just<Output>` (checked by the caller).
      let value = unsafeBitCast(transform(input), to: Just<Output>.self).output
      _ = offer(value, from: .just)
      // The child finished: one more publisher may come, unless the stream ended meanwhile.
      guard maxPublishers != .unlimited, lock.withLock({ state.isActive }) else { return .none }
      return .max(1)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      switch completion {
      case .finished:
        finished(
          lock.withLock {
            var finished = state.upstreamFinished()
            wakeIfQueued(&finished)
            return finished
          }
        )
      case .failure(let error):
        failed(
          lock.withLock {
            var failed = state.fail(error, from: nil)
            wakeIfQueued(&failed)
            return failed
          }
        )
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
      finished(
        lock.withLock {
          var finished = state.childFinished(child, maxPublishers: maxPublishers)
          wakeIfQueued(&finished)
          return finished
        }
      )
    }

    @usableFromInline
    func childFailed(_ child: InnerTag, _ error: Failure) {
      failed(
        lock.withLock {
          var failed = state.fail(error, from: child)
          wakeIfQueued(&failed)
          return failed
        }
      )
    }

    /// A child's value: delivered now or queued (see ``FlatMapState/receive(_:from:)``).
    /// Returns the top-up to ask the child for: one more after a value delivered now, unless
    /// the child was asked for unlimited values; a queued value's top-up comes with its
    /// delivery.
    ///
    /// With the downstream's demand unlimited, a value delivered at once gives the drain back
    /// without taking the lock again (`MergeClaim`'s `releaseFast()`): the drain flag stays
    /// set, and the next value, or whoever records work meanwhile (`MergeClaim`'s `wake()`),
    /// takes it over.
    @inlinable @inline(__always)
    func offer(_ value: Output, from child: InnerTag) -> Subscribers.Demand {
      // Only non-generic types cross the lock: this often runs unspecialised.
      var target: Box?
      // A fast delivery calls the downstream through `box` unretained: `cancel()` leaves the
      // box to it (see there).
      var borrowed: Unmanaged<Box>?
      var fast = false
      let outcome = lock.withLock { () -> FlatMapValueOutcome in
        // The last fast delivery let go: this thread takes over the drain flag it left set.
        let holding = claim.takeLetGo()
        var outcome = state.receive(value, from: child, holdingDrain: holding)
        // Queued behind a delivery: if that one let go meanwhile, this thread drains.
        if case .queued = outcome, claim.wake() { outcome = .drain }
        if case .deliver = outcome {
          // Unlimited demand needs no update after the delivery: it may let go without the lock.
          fast = state.queue.demand == .unlimited
          if fast, let box {
            borrowed = Unmanaged.passUnretained(box)
          } else {
            fast = false
            target = box
          }
        }
        if fast {
          if !holding { claim.beginFast() }
        } else if holding {
          claim.release(reopening: false)  // this thread delivers through the lock after all
        }
        return outcome
      }
      switch outcome {
      case .ignored:
        return .none
      case .queued:
        return .none
      case .drain:
        drain()
        return .none
      case .deliver(let unlimited):
        if let borrowed {
          // Unlimited demand: what the downstream returns changes nothing.
          _ = borrowed._withUnsafeGuaranteedRef { $0.downstream.receive(value) }
          // Refused: work was recorded meanwhile; this thread still owns the drain.
          if !claim.releaseFast() {
            claim.release(reopening: false)
            drain()
          }
          return .none
        }
        // Consumed: binding a copy would retain the box a second time.
        guard let target = consume target else {
          preconditionFailure("FlatMap: a delivery after the downstream was released")
        }
        let more = target.downstream.receive(value)
        if !lock.withLock({ state.releaseDrainIfIdle(adding: more) }) { drain() }
        return unlimited ? .none : .max(1)
      }
    }

    /// Under the lock, after a `.finished` was handed out: if it was queued while the drain was
    /// held (`transform` is handed out with it), by a fast delivery's thread or on behalf of
    /// nobody after one let go, makes sure a thread sends it (``MergeClaim/wake()``), and
    /// `claimed` tells whether this one does. Under the lock, so that the word's only change
    /// outside it is a fast delivery letting go (see ``MergeClaim/takeLetGo()``).
    @inlinable
    @inline(__always)
    func wakeIfQueued(_ finished: inout State.Finished) {
      if !finished.claimed, finished.transform != nil { finished.claimed = claim.wake() }
    }

    /// Under the lock, after a failure was handed out: the same for the failure, queued while
    /// the drain was held.
    @usableFromInline
    func wakeIfQueued(_ failed: inout State.Failed?) {
      guard var handed = failed.take() else { return }
      if !handed.claimed { handed.claimed = claim.wake() }
      failed = handed
    }

    /// Acts on what a `.finished` handed out: asks the upstream for one more publisher, and
    /// delivers `.finished` if the caller claimed the drain.
    // Always inlined: outlined, it cost measurably per child on `flatMapFuture` and
    // `flatMapErased` (Docs/Performance.md).
    @inlinable
    @inline(__always)
    func finished(_ finished: State.Finished) {
      if finished.asksOneMore { finished.upstreamToAsk.request(.max(1)) }
      if finished.claimed { drain() }
    }  // the finished side's subscription and a finished stream's transform are released here

    /// Acts on what a failure handed out: cancels the rest, and delivers the failure (after the
    /// queued values the demand covers) if the caller claimed the drain.
    @usableFromInline
    func failed(_ failed: State.Failed?) {
      guard let failed else { return }
      for subscription in failed.cancel { subscription.cancel() }
      if failed.claimed { drain() }
    }  // the failing side's subscription and the transform are released here

    // MARK: Downstream

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      var turning: [any Subscription] = []
      let claimed = lock.withLock { () -> Bool in
        // A request made while a value is being delivered (from inside `receive(_:)`) only adds
        // to the demand, as Combine: the children hear of it through what their values return.
        // (A drain flag that a fast delivery left set, `claim.isLetGo`, is nobody's delivery.)
        let delivering = state.queue.drain.isClaimed && !claim.isLetGo
        let claimed = state.request(demand)
        if demand == .unlimited, !delivering { turning = state.childrenTurningUnlimited() }
        return claimed
      }
      if claimed { drain() }
      // As Combine: each `request(.unlimited)` asks every child for everything, in the order the
      // children were subscribed.
      for subscription in turning { subscription.request(.unlimited) }
    }

    @usableFromInline
    func cancel() {
      var downstream: Box?
      let cancelled = lock.withLock { () -> State.Cancelled? in
        // A value on its way down without the lock calls the downstream through `box`
        // unretained: it keeps the box, finds its release refused, and its drain lets go of it.
        if !claim.interruptFast() { downstream = box.take() }
        return state.cancel()
      }
      guard let cancelled else { return }
      for subscription in cancelled.cancel { subscription.cancel() }
      _ = downstream
    }  // queued values, a pending failure, the transform and the downstream are released here

    /// Delivers queued values while there is demand, then the completion once it is due; run
    /// only by the thread that claimed the drain.
    @inlinable
    func drain() {
      var more = Subscribers.Demand.none
      var cancelledBox: Box?
      SerialDrain.run(lock) { () -> DrainStep? in
        guard let step = state.nextStep(adding: more) else {
          // Cancelled during a fast delivery, which kept the box (see `cancel()`).
          if case .terminal = state.phase { cancelledBox = box.take() }
          return nil
        }
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
      _ = cancelledBox  // released here, outside the lock
    }

    @usableFromInline
    var description: String { "FlatMap" }

    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: [:]) }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
