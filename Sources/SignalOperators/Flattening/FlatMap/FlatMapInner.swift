public import StreamCore

extension Publishers.FlatMap {
  /// The downstream's subscription and the upstream's subscriber; each child gets a ``Side``.
  ///
  /// ```
  /// upstream value --> claim a child slot, transform, subscribe the child
  /// child value --> deliver now if nobody is delivering and there is demand, else queue it
  /// the delivering thread (`draining`) empties the queue while there is demand, then hands over
  /// upstream finished + no live child + empty queue --> .finished (by the delivering thread)
  /// any failure --> failing (`done` and `completionDue`): nothing more accepted, the upstream
  ///   and the other children cancelled, the queue kept
  /// failing --> the delivering thread delivers queued values while there is demand, then the
  ///   failure, which doesn't wait for demand: values still queued are released after it
  /// cancel() --> done: everything cancelled and released, nothing more delivered
  /// ```
  ///
  /// Queued values were sent before the failure (the failing child's own among them), so they
  /// go first, as they would have if each send had completed its delivery.
  ///
  /// Children live in `children`, a slot array reused through `free`; a slot's `generation`
  /// tells a child's events from those of an earlier occupant.
  // Sendable: all mutable state is guarded by `lock`; the downstream is called only by the
  // thread that set `draining`, and the upstream, children and transform outside the lock.
  @usableFromInline
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline typealias Input = Upstream.Output

    @usableFromInline typealias Child = FlatMapChild

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

    @usableFromInline
    struct Pending {
      @usableFromInline let value: Output
      /// -1 for a value from a `Just`, which needs no top-up.
      @usableFromInline let slot: Int
      @usableFromInline let generation: Int

      @inlinable
      init(value: Output, slot: Int, generation: Int) {
        self.value = value
        self.slot = slot
        self.generation = generation
      }
    }

    @usableFromInline
    enum DrainStep {
      case value(Downstream, Output, topUp: (any Subscription)?)
      case complete(Downstream, Subscribers.Completion<Failure>)
      case stop
    }

    /// What a terminal transition takes out of the state, to drop or cancel after the lock.
    @usableFromInline
    struct Released {
      @usableFromInline var upstream: (any Subscription)?
      @usableFromInline var children: [Child]
      @usableFromInline var queue: RingBuffer<Pending>
      @usableFromInline var transform: ((Input) -> NewPublisher)?

      @inlinable
      init(
        upstream: (any Subscription)?,
        children: [Child],
        queue: RingBuffer<Pending>,
        transform: ((Input) -> NewPublisher)?
      ) {
        self.upstream = upstream
        self.children = children
        self.queue = queue
        self.transform = transform
      }
    }

    @usableFromInline let lock = Lock()
    @usableFromInline let maxPublishers: Subscribers.Demand
    @usableFromInline @exclusivity(unchecked) var box: Box?
    @usableFromInline @exclusivity(unchecked) var transform: ((Input) -> NewPublisher)?
    @usableFromInline @exclusivity(unchecked) var upstream: (any Subscription)?
    @usableFromInline @exclusivity(unchecked) var upstreamSubscribed = false
    @usableFromInline @exclusivity(unchecked) var upstreamFinished = false
    /// Requested by the downstream and not yet delivered.
    @usableFromInline @exclusivity(unchecked) var demand = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked) var children: [Child] = []
    @usableFromInline @exclusivity(unchecked) var free: [Int] = []
    /// Children claimed and not yet finished.
    @usableFromInline @exclusivity(unchecked) var live = 0
    @usableFromInline @exclusivity(unchecked) var lastGeneration = 0
    /// Values waiting for demand or for the delivering thread, oldest first.
    @usableFromInline @exclusivity(unchecked) var queue = RingBuffer<Pending>()
    /// A thread is delivering to the downstream, or is about to.
    @usableFromInline @exclusivity(unchecked) var draining = false
    /// The completion to deliver once the queue is empty (a failure: at once).
    @usableFromInline @exclusivity(unchecked) var completion: Subscribers.Completion<Failure>?
    /// `completion != nil`, readable without generic metadata.
    @usableFromInline @exclusivity(unchecked) var completionDue = false
    /// Cancelled, failed or finished: nothing more is accepted. With `completionDue` it means
    /// failing: the queue is still delivered while there is demand, then the failure.
    @usableFromInline @exclusivity(unchecked) var done = false

    @inlinable
    init(
      downstream: Downstream,
      maxPublishers: Subscribers.Demand,
      transform: @escaping (Input) -> NewPublisher
    ) {
      self.box = Box(downstream)
      self.maxPublishers = maxPublishers
      self.transform = transform
    }

    // MARK: Upstream

    @inlinable
    func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard !done, !upstreamSubscribed else { return false }
        upstreamSubscribed = true
        upstream = subscription
        return true
      }
      guard accepted else { return subscription.cancel() }
      subscription.request(maxPublishers)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      // Folded away once specialised: a `Just` child takes the shortcut below.
      if NewPublisher.self == Just<Output>.self { return receiveJust(input) }
      let claim = lock.withLock { () -> (Int, Int, (Input) -> NewPublisher)? in
        guard !done, let transform else { return nil }
        lastGeneration &+= 1
        let slot: Int
        if let reused = free.popLast() {
          slot = reused
          children[slot].generation = lastGeneration
          children[slot].unlimited = false
        } else {
          slot = children.count
          children.append(Child(generation: lastGeneration))
        }
        live += 1
        return (slot, lastGeneration, transform)
      }
      guard let (slot, generation, transform) = claim else { return .none }
      transform(input).subscribe(Side(inner: self, slot: slot, generation: generation))
      return .none
    }

    /// A `Just` child, without subscribing to it: its value goes down now or is queued, just
    /// as if the child had been asked for one value and had finished right after sending it.
    @inlinable
    func receiveJust(_ input: Input) -> Subscribers.Demand {
      guard let transform = lock.withLock({ done ? nil : transform }) else { return .none }
      // `NewPublisher` is `Just<Output>` (checked by the caller).
      let value = unsafeBitCast(transform(input), to: Just<Output>.self).output
      let target = lock.withLock { () -> Downstream? in
        guard !done, let downstream = box?.downstream else { return nil }
        guard !draining, demand > 0 else {
          queue.append(Pending(value: value, slot: -1, generation: 0))
          return nil
        }
        draining = true
        demand -= 1
        return downstream
      }
      if let target { drain(target.receive(value)) }
      // The child finished: one more publisher may come, unless the stream ended meanwhile.
      guard maxPublishers != .unlimited, !lock.withLock({ done }) else { return .none }
      return .max(1)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      guard case .finished = completion else {
        if case .failure(let error) = completion { fail(error, slot: nil) }
        return
      }
      let (released, drains) = lock.withLock { () -> ((any Subscription)?, Bool) in
        guard !done else { return (nil, false) }
        upstreamFinished = true
        return (upstream.take(), finishIfIdle())
      }
      _ = released
      if drains { drain(.none) }
    }

    /// If nothing is left to wait for, sets `.finished` as the completion and returns whether
    /// the caller is to deliver it. Call it under `lock`.
    @inlinable
    func finishIfIdle() -> Bool {
      guard upstreamFinished, live == 0, !completionDue else { return false }
      completion = .finished
      completionDue = true
      guard !draining else { return false }
      draining = true
      return true
    }

    // MARK: Children

    @inlinable
    func childSubscribed(_ slot: Int, _ generation: Int, _ subscription: any Subscription) {
      let request = lock.withLock { () -> Subscribers.Demand? in
        guard !done, children[slot].generation == generation,
          children[slot].subscription == nil
        else { return nil }
        let unlimited = demand == .unlimited
        children[slot].subscription = subscription
        children[slot].unlimited = unlimited
        return unlimited ? .unlimited : .max(1)
      }
      guard let request else { return subscription.cancel() }
      subscription.request(request)
    }

    @inlinable
    func childValue(_ slot: Int, _ generation: Int, _ value: Output) -> Subscribers.Demand {
      // Only non-generic types cross the lock: this often runs unspecialised.
      var target: Box?
      let unlimited = lock.withLock { () -> Bool? in
        guard !done, children[slot].generation == generation, let box else { return nil }
        guard !draining, demand > 0 else {
          queue.append(Pending(value: value, slot: slot, generation: generation))
          return nil
        }
        draining = true
        demand -= 1
        target = box
        return children[slot].unlimited
      }
      guard let unlimited, let target else { return .none }
      drain(target.downstream.receive(value))
      return unlimited ? .none : .max(1)
    }

    @inlinable
    func childFinished(_ slot: Int, _ generation: Int) {
      let (released, more, drains) = lock.withLock {
        () -> ((any Subscription)?, (any Subscription)?, Bool) in
        guard !done, children[slot].generation == generation else { return (nil, nil, false) }
        let released = children[slot].subscription.take()
        children[slot].generation = 0
        free.append(slot)
        live -= 1
        let more = maxPublishers == .unlimited ? nil : upstream
        return (released, more, finishIfIdle())
      }
      _ = released
      more?.request(.max(1))
      if drains { drain(.none) }
    }

    @usableFromInline
    func childFailed(_ slot: Int, _ generation: Int, _ error: Failure) {
      let current = lock.withLock { !done && children[slot].generation == generation }
      if current { fail(error, slot: slot) }
    }

    // MARK: Downstream

    /// Delivers queued values while there is demand, then the completion once it is due. Only
    /// the thread that set `draining` runs it; `more` is demand the last delivery returned.
    @inlinable
    func drain(_ more: Subscribers.Demand) {
      // The common case, nothing queued and nothing due, without the general loop.
      let idle = lock.withLock { () -> Bool in
        guard !done, queue.isEmpty, !completionDue else { return false }
        demand += more
        draining = false
        return true
      }
      if !idle { drainLoop(more) }
    }

    /// The general case of ``drain(_:)``.
    @inlinable
    func drainLoop(_ more: Subscribers.Demand) {
      var more = more
      while true {
        let step = lock.withLock { () -> DrainStep in
          if done {
            if completionDue {  // failing: queued values first, while there is demand
              if more > 0 { demand += more }
              if !queue.isEmpty, demand > 0, let downstream = box?.downstream {
                demand -= 1
                return .value(downstream, dequeue().value, topUp: nil)
              }
            }
            draining = false
            completionDue = false
            // Values still queued are released with the rest, after the failure.
            guard let completion = completion.take(), let downstream = box.take()?.downstream
            else {
              return .stop
            }
            return .complete(downstream, completion)
          }
          if more > 0 { demand += more }
          if !queue.isEmpty {
            guard demand > 0, let downstream = box?.downstream else {
              draining = false
              return .stop
            }
            demand -= 1
            let pending = dequeue()
            guard pending.slot >= 0 else { return .value(downstream, pending.value, topUp: nil) }
            let child = children[pending.slot]
            let current = child.generation == pending.generation && !child.unlimited
            return .value(downstream, pending.value, topUp: current ? child.subscription : nil)
          }
          if let completion, let downstream = box?.downstream {
            done = true
            self.completion = nil
            completionDue = false
            box = nil
            return .complete(downstream, completion)
          }
          draining = false
          return .stop
        }
        switch step {
        case .stop:
          return
        case .complete(let downstream, let completion):
          downstream.receive(completion: completion)
          releaseAll()
          return
        case .value(let downstream, let value, let topUp):
          more = downstream.receive(value)
          topUp?.request(.max(1))
        }
      }
    }

    /// Takes the next queued value. Call it under `lock` with the queue not empty.
    @inlinable
    func dequeue() -> Pending {
      guard let pending = queue.popFirst() else {
        preconditionFailure("FlatMap: dequeue() from an empty queue")
      }
      return pending
    }
  }
}
