/// The life cycle "values wait for demand, then the completion" shared by every operator that
/// queues values for its downstream on the serial drain: `buffer`, `collect(_ count:)`, the
/// time-based operators (through `DeliveryOutlet`), `flatMap`, `switchToLatest` and
/// `ReplaySubject`'s conduits. (`merge`, `zip` and `combineLatest` claim with an atomic instead,
/// and `receive(on:)` swaps whole batches out; see `Docs/Internals.md`.)
///
/// A value type kept inside an operator's locked state, so each transition is testable without
/// threads. It owns a ``SerialDrain``: the mutating calls that can make something deliverable
/// return `true` when the caller claimed the drain and must run it after the lock, taking steps
/// from ``nextStep()``.
///
/// A `gated` queue (`flatMap`, `switchToLatest`) leaves the claim out: its operator calls the
/// downstream only inside a ``DeliveryGate``, which already lets one thread deliver at a time,
/// so `true` means "something is deliverable: pass the gate and drain", whichever thread finds
/// it, and ``nextStep()`` returns `nil` when nothing is left.
///
/// ```
/// open --finish(.finished)--> finishing (values still queued go first, as demand allows)
/// open --finish(.failure)--> failing    (see ``FailureOrder``)
/// finishing / failing --nextStep() returns .completion--> ended
/// ```
@usableFromInline
package struct DeliveryQueue<Value, Failure: Error> {
  /// When a failure is delivered relative to values still queued.
  @usableFromInline
  package enum FailureOrder: Sendable {
    /// After every queued value, like a `.finished` (`buffer`, `collect(_ count:)`, the
    /// time-based operators).
    case afterQueuedValues
    /// After the queued values the downstream's demand covers; the rest are dropped, because a
    /// failure doesn't wait for demand (`flatMap`, `switchToLatest`).
    case afterDemandedValues
  }

  /// The values waiting for demand or for the drain, oldest first.
  @usableFromInline
  package var values = RingBuffer<Value>()
  /// What the downstream asked for and has not yet received.
  @usableFromInline
  package var demand = Subscribers.Demand.none
  /// Whether the completion has been handed out.
  @usableFromInline
  package private(set) var ended = false
  /// Who delivers.
  @usableFromInline
  package var drain = SerialDrain()
  @usableFromInline
  let failureOrder: FailureOrder
  /// Whether the operator delivers inside a ``DeliveryGate``, without claiming `drain`.
  @usableFromInline
  let gated: Bool
  /// Whether `.finished` waits, once the values are out, until the downstream has demand
  /// (`buffer`, as Combine's); otherwise it goes without demand.
  @usableFromInline
  let finishAwaitsDemand: Bool
  /// The completion waiting for the queued values.
  @usableFromInline
  package private(set) var completion: Subscribers.Completion<Failure>?
  /// Whether values go out in batches, as Combine's `buffer` pops them (see
  /// ``nextBatchedStep(adding:)``).
  @usableFromInline
  let batches: Bool
  /// The values of the current batch still to deliver, after the one being delivered; their
  /// demand is already taken.
  @usableFromInline
  var batch = 0
  /// The demand the current batch's deliveries returned, added once the batch is out.
  @usableFromInline
  var returnedInBatch = Subscribers.Demand.none
  /// Whether a failure that arrived during the batch goes before the rest of it.
  @usableFromInline
  var failureCutsBatch = false

  @inlinable
  package init(
    failureOrder: FailureOrder,
    finishAwaitsDemand: Bool = false,
    gated: Bool = false,
    batches: Bool = false
  ) {
    self.failureOrder = failureOrder
    self.finishAwaitsDemand = finishAwaitsDemand
    self.gated = gated
    self.batches = batches
  }

  /// Claims the drain for work just made deliverable; a gated queue has no claim to take.
  @inlinable
  mutating func claimDrain() -> Bool {
    gated || drain.claim()
  }

  /// Whether a completion has been accepted (delivered or not).
  @inlinable
  package var isCompleting: Bool { completion != nil || ended }

  /// Whether something can be delivered now.
  @inlinable
  package var hasDeliverableWork: Bool {
    guard !ended else { return false }
    if demand > .none, !values.isEmpty { return true }
    switch completion {
    case .none: return false
    case .finished: return values.isEmpty && (!finishAwaitsDemand || demand > .none)
    case .failure:
      switch failureOrder {
      case .afterQueuedValues: return values.isEmpty
      case .afterDemandedValues: return values.isEmpty || demand == .none
      }
    }
  }

  /// Queues `value` (ignored once completing); `true`: the caller claimed the drain.
  @inlinable
  package mutating func enqueue(_ value: Value) -> Bool {
    guard !isCompleting else { return false }
    values.append(value)
    return hasDeliverableWork && claimDrain()
  }

  /// Adds demand; `true`: the caller claimed the drain.
  @inlinable
  package mutating func request(_ more: Subscribers.Demand) -> Bool {
    guard !ended else { return false }
    demand += more
    return hasDeliverableWork && claimDrain()
  }

  /// Accepts the completion (the first one wins); `true`: the caller claimed the drain.
  /// `arriving`: the upstream sends it now (with `batches`, a failure that arrives during a
  /// batch may go before the rest of it); `false` for one the operator made.
  @inlinable
  package mutating func finish(
    _ completion: Subscribers.Completion<Failure>,
    arriving: Bool = true
  ) -> Bool {
    guard !isCompleting else { return false }
    self.completion = completion
    if batches, arriving, batch > 0, case .failure = completion {
      failureCutsBatch = values.count == batch || demand == .none
    }
    return hasDeliverableWork && claimDrain()
  }

  /// The drain's next step, for the thread that claimed it; `nil` after releasing the drain
  /// (gated: when nothing is left).
  /// Call under the lock. Adds `more`, the demand the previous delivery returned, first.
  @inlinable
  package mutating func nextStep(
    adding more: Subscribers.Demand = .none
  ) -> DeliveryStep<Value, Failure>? {
    if batches { return nextBatchedStep(adding: more) }
    demand += more
    if demand > .none, let value = values.popFirst() {
      demand -= 1
      return .value(value)
    }
    return completionStep()
  }

  /// ``nextStep(adding:)`` in batches, as Combine's `buffer` drains: it pops as many values as
  /// the demand covers at once, takes their demand then, and adds the demand they return once
  /// the last is out. A failure from the upstream that arrives meanwhile, when no demand or no
  /// value is left beyond the batch (``finish(_:arriving:)``), goes before the rest of the
  /// batch (Combine delivers it there, then the rest of the batch after it, breaking the
  /// contract; here the rest is dropped, so a subscriber sees what a Combine subscriber that
  /// keeps the contract sees: OpenCombine's `BufferTests.testFailWhileSendingValues`).
  @inlinable
  mutating func nextBatchedStep(
    adding more: Subscribers.Demand
  ) -> DeliveryStep<Value, Failure>? {
    if batch > 0 {
      returnedInBatch += more
      if failureCutsBatch, let completion {
        batch = 0  // the failure goes now
        return end(with: completion)
      }
      batch -= 1
      if let value = values.popFirst() { return .value(value) }
    } else {
      demand += returnedInBatch + more
    }
    returnedInBatch = .none
    if demand > .none, let value = values.popFirst() {
      let size = demand.max.map { Swift.min($0, values.count + 1) } ?? values.count + 1
      demand -= size
      batch = size - 1
      return .value(value)
    }
    return completionStep()
  }

  /// The last part of a step: the completion if it is deliverable, else the drain is released
  /// (`nil`).
  @inlinable
  mutating func completionStep() -> DeliveryStep<Value, Failure>? {
    if let completion, hasDeliverableWork { return end(with: completion) }
    if !gated { drain.release() }
    return nil
  }

  @usableFromInline typealias Completion = Subscribers.Completion<Failure>

  /// Hands out `completion`, with the values it overtook, and ends the queue.
  @inlinable
  mutating func end(with completion: Completion) -> DeliveryStep<Value, Failure> {
    self.completion = nil
    ended = true
    return .completion(completion, dropped: values.takeAll())
  }

  /// Ends the queue without delivering anything (cancel); returns the values and the completion
  /// not delivered, to release after the lock (a failure's `deinit` can run user code).
  @inlinable
  package mutating func cancel() -> DeliveryQueueRemains<Value, Failure> {
    ended = true
    let completion = self.completion.take()
    return DeliveryQueueRemains(values: values.takeAll(), completion: completion)
  }
}

/// What ``DeliveryQueue/cancel()`` took out of a queue, released after the lock.
@usableFromInline
package struct DeliveryQueueRemains<Value, Failure: Error> {
  /// The values not delivered, oldest first.
  @usableFromInline
  package var values: RingBuffer<Value>
  /// The completion not delivered.
  @usableFromInline
  package var completion: Subscribers.Completion<Failure>?

  @inlinable
  init(values: RingBuffer<Value>, completion: Subscribers.Completion<Failure>?) {
    self.values = values
    self.completion = completion
  }
}

/// One step of a ``DeliveryQueue``'s drain, performed outside the lock.
@usableFromInline
package enum DeliveryStep<Value, Failure: Error> {
  /// Deliver a value; add the demand the downstream returns to the next ``DeliveryQueue/nextStep(adding:)``.
  case value(Value)
  /// Deliver the completion; `dropped` holds values the failure overtook, released after it.
  case completion(Subscribers.Completion<Failure>, dropped: RingBuffer<Value>)
}

extension DeliveryQueue: Sendable where Value: Sendable {}
extension DeliveryStep: Sendable where Value: Sendable {}
extension DeliveryQueueRemains: Sendable where Value: Sendable {}
