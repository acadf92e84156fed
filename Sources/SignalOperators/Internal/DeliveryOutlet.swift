package import StreamCore

/// The downstream end of a stateful operator that queues for its subscriber (`buffer`,
/// `collect(_ count:)` and the time-based operators): the subscriber and the ``DeliveryQueue``
/// of what is due for it.
///
/// Kept inside the operator's locked `State` for as long as the subscriber may still receive
/// something, so that dropping the state releases the subscriber. Values enter the queue when
/// they are due (a timer fired, a scheduled action ran, a group filled); the thread that claims
/// the queue's drain delivers them, one at a time, with ``DeliveryOutlet/drain(_:next:forward:)``
/// or its own `SerialDrain.run` loop when its steps carry more (`buffer`'s refills).
package struct DeliveryOutlet<Downstream: Subscriber> {
  package typealias Value = Downstream.Input
  package typealias Failure = Downstream.Failure

  /// Who receives the values.
  package let downstream: Downstream
  /// What is due for `downstream` and waits for demand or for the drain.
  package var queue: DeliveryQueue<Value, Failure>

  /// An outlet to `downstream` whose queue starts with `demand`: operators that pass requests to
  /// their upstream (`delay`, `timeout`) start it at `.unlimited`, since the upstream already
  /// keeps to the subscriber's demand.
  package init(_ downstream: Downstream, demand: Subscribers.Demand = .none) {
    self.downstream = downstream
    queue = DeliveryQueue(failureOrder: .afterQueuedValues)
    queue.demand = demand
  }

  /// The drain's next step, with the subscriber to deliver it to; `nil` after releasing the
  /// drain. Call under the lock; `more` is the demand the previous value returned.
  package mutating func nextStep(adding more: Subscribers.Demand) -> OutletStep<Downstream>? {
    switch queue.nextStep(adding: more) {
    case .value(let value)?:
      return .value(downstream, value)
    case .completion(let completion, let dropped)?:
      return .completion(downstream, completion, dropped: dropped)
    case nil:
      return nil
    }
  }

  /// Everything the outlet held, to be released after the lock (cancel).
  package mutating func cancel() -> Released {
    Released(downstream: downstream, remains: queue.cancel())
  }

  /// What ``cancel()`` lets go of: released after the lock, since a `deinit` can run user code.
  package struct Released {
    /// The subscriber.
    let downstream: Downstream
    /// Values that were due and the completion, not yet delivered.
    let remains: DeliveryQueueRemains<Value, Downstream.Failure>
  }
}

/// One delivery of a ``DeliveryOutlet``'s drain, performed outside the lock.
package enum OutletStep<Downstream: Subscriber> {
  /// Deliver a value.
  case value(Downstream, Downstream.Input)
  /// Deliver the completion; the operator is terminal and `dropped` is released after it.
  case completion(
    Downstream,
    Subscribers.Completion<Downstream.Failure>,
    dropped: RingBuffer<Downstream.Input>
  )

  /// Whether this step ends the subscription.
  package var isCompletion: Bool {
    if case .completion = self { return true }
    return false
  }
}

extension DeliveryOutlet {
  /// The drain loop of an outlet whose steps are plain values, run by the thread that claimed
  /// the outlet's drain.
  ///
  /// - Parameters:
  ///   - lock: The lock that guards the operator's state.
  ///   - next: Called under `lock` with the demand the previous value returned; returns the
  ///     next step, or `nil` after releasing the drain (or when the state is terminal).
  ///   - forward: Also called, outside the lock and before `next`, with the demand a value
  ///     returned when it is more than none, for operators that pass demand to their upstream.
  package static func drain(
    _ lock: borrowing Lock,
    next: (_ more: Subscribers.Demand) -> OutletStep<Downstream>?,
    forward: (Subscribers.Demand) -> Void = { _ in }
  ) {
    var more = Subscribers.Demand.none
    SerialDrain.run(lock) {
      next(more)
    } perform: { step in
      switch consume step {
      case .value(let downstream, let value):
        more = downstream.receive(value)
        if more > .none { forward(more) }
        return true
      case .completion(let downstream, let completion, let dropped):
        downstream.receive(completion: completion)
        _ = consume dropped  // released after the completion, outside the lock
        return false
      }
    }
  }
}

/// An operator's `State` whose live cases each hold a ``DeliveryOutlet``: it says how to
/// reach the outlet and how to end, and gets the demand and drain transitions shared by all.
package protocol OutletState {
  /// The subscriber type.
  associatedtype Downstream: Subscriber

  /// Runs `body` on the outlet of the current case; `nil` when it has none.
  mutating func withOutlet<Result>(
    _ body: (inout DeliveryOutlet<Downstream>) -> Result
  ) -> Result?

  /// Becomes terminal, once the outlet handed out the completion.
  mutating func end()
}

extension OutletState {
  /// Adds demand; `true`: the caller claimed the drain.
  package mutating func request(_ demand: Subscribers.Demand) -> Bool {
    withOutlet { $0.queue.request(demand) } ?? false
  }

  /// The drain's next step; the state is terminal once it hands out the completion.
  package mutating func nextStep(adding more: Subscribers.Demand) -> OutletStep<Downstream>? {
    guard let step = withOutlet({ $0.nextStep(adding: more) }) ?? nil else { return nil }
    if step.isCompletion { end() }
    return step
  }
}
