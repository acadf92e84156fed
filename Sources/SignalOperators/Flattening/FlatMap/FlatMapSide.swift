public import StreamCore

extension Publishers.FlatMap.Inner {
  /// Fails the stream with `error`: cancels the upstream and every child but the one in
  /// `slot` (the one that failed) and has the failure delivered once the values already queued
  /// went down, while there is demand (see `drainLoop`). The queue is kept: those values were
  /// sent before the failure.
  @usableFromInline
  func fail(_ error: Failure, slot: Int?) {
    let (released, drains) = lock.withLock { () -> (Released?, Bool) in
      guard !done else { return (nil, false) }
      done = true
      completion = .failure(error)
      completionDue = true
      let released = takeAll(keepingQueue: true)
      guard !draining else { return (released, false) }
      draining = true
      return (released, true)
    }
    guard let released else { return }
    if slot != nil { released.upstream?.cancel() }
    for (index, child) in released.children.enumerated() where index != slot {
      child.subscription?.cancel()
    }
    if drains { drain(.none) }
  }

  /// Moves everything but the downstream and the completion out of the state, and the queue
  /// too unless `keepingQueue`. Call it under `lock`.
  @usableFromInline
  func takeAll(keepingQueue: Bool = false) -> Released {
    let released = Released(
      upstream: upstream.take(),
      children: children,
      queue: keepingQueue ? RingBuffer() : queue.takeAll(),
      transform: transform.take()
    )
    children = []
    free = []
    live = 0
    return released
  }

  /// Drops what is left once the completion was delivered.
  @usableFromInline
  func releaseAll() {
    let released = lock.withLock { takeAll() }
    _ = released
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let drains = lock.withLock { () -> Bool in
      guard !done || completionDue else { return false }  // failing: for the queued values
      self.demand += demand
      guard !draining, !queue.isEmpty else { return false }
      draining = true
      return true
    }
    if drains { drain(.none) }
  }

  @usableFromInline
  func cancel() {
    // A pending failure is released after the lock too.
    let released = lock.withLock { () -> (Released, Box?, Subscribers.Completion<Failure>?) in
      done = true
      completionDue = false
      return (takeAll(), box.take(), completion.take())
    }
    released.0.upstream?.cancel()
    for child in released.0.children {
      child.subscription?.cancel()
    }
  }

  @usableFromInline
  var description: String { "FlatMap" }

  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }

  @usableFromInline
  var playgroundDescription: Any { description }
}

extension Publishers.FlatMap.Inner {
  /// The subscriber of one child: tags its events with the child's slot and generation.
  @usableFromInline
  struct Side: Subscriber, CustomStringConvertible {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = NewPublisher.Failure

    @usableFromInline let inner: Publishers.FlatMap<NewPublisher, Upstream>.Inner<Downstream>
    @usableFromInline let slot: Int
    @usableFromInline let generation: Int
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(
      inner: Publishers.FlatMap<NewPublisher, Upstream>.Inner<Downstream>,
      slot: Int,
      generation: Int
    ) {
      self.inner = inner
      self.slot = slot
      self.generation = generation
    }

    @usableFromInline
    var description: String { "FlatMap" }

    @inlinable
    func receive(subscription: any Subscription) {
      inner.childSubscribed(slot, generation, subscription)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
      inner.childValue(slot, generation, input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
      switch completion {
      case .finished: inner.childFinished(slot, generation)
      case .failure(let error): inner.childFailed(slot, generation, error)
      }
    }
  }
}
