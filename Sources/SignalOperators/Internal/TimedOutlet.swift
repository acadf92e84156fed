import StreamCore

/// The downstream end of a time-based operator (`debounce`, `throttle`, `delay`, `timeout`): the
/// subscriber and the ``DeliveryQueue`` of what is due for it.
///
/// Kept inside the operator's locked `State` for as long as the subscriber may still receive
/// something, so that dropping the state releases the subscriber. Values enter the queue when
/// they are due (a timer fired, a scheduled action ran); the thread that claims the queue's drain
/// delivers them, one at a time, with ``TimedOutlet/drain(_:next:forward:)``.
struct TimedOutlet<Downstream: Subscriber> {
  typealias Value = Downstream.Input
  typealias Failure = Downstream.Failure

  /// Who receives the values.
  let downstream: Downstream
  /// What is due for `downstream` and waits for demand or for the drain.
  var queue: DeliveryQueue<Value, Failure>

  /// An outlet to `downstream` whose queue starts with `demand`: operators that pass requests to
  /// their upstream (`delay`, `timeout`) start it at `.unlimited`, since the upstream already
  /// keeps to the subscriber's demand.
  init(_ downstream: Downstream, demand: Subscribers.Demand = .none) {
    self.downstream = downstream
    queue = DeliveryQueue(failureOrder: .afterQueuedValues)
    queue.demand = demand
  }

  /// The drain's next step, with the subscriber to deliver it to; `nil` after releasing the
  /// drain. Call under the lock; `more` is the demand the previous value returned.
  mutating func nextStep(adding more: Subscribers.Demand) -> TimedStep<Downstream>? {
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
  mutating func cancel() -> Released {
    Released(downstream: downstream, remains: queue.cancel())
  }

  /// What ``cancel()`` lets go of: released after the lock, since a `deinit` can run user code.
  struct Released {
    /// The subscriber.
    let downstream: Downstream
    /// Values that were due and the completion, not yet delivered.
    let remains: DeliveryQueueRemains<Value, Downstream.Failure>
  }
}

/// One delivery of a ``TimedOutlet``'s drain, performed outside the lock.
enum TimedStep<Downstream: Subscriber> {
  /// Deliver a value.
  case value(Downstream, Downstream.Input)
  /// Deliver the completion; the operator is terminal and `dropped` is released after it.
  case completion(
    Downstream,
    Subscribers.Completion<Downstream.Failure>,
    dropped: RingBuffer<Downstream.Input>
  )

  /// Whether this step ends the subscription.
  var isCompletion: Bool {
    if case .completion = self { return true }
    return false
  }
}

extension TimedOutlet {
  /// The drain loop of a time-based operator, run by the thread that claimed the outlet's drain.
  ///
  /// - Parameters:
  ///   - lock: The lock that guards the operator's state.
  ///   - next: Called under `lock` with the demand the previous value returned; returns the
  ///     next step, or `nil` after releasing the drain (or when the state is terminal).
  ///   - forward: Also called, outside the lock and before `next`, with the demand a value
  ///     returned when it is more than none, for operators that pass demand to their upstream.
  static func drain(
    _ lock: borrowing Lock,
    next: (_ more: Subscribers.Demand) -> TimedStep<Downstream>?,
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

/// A restartable timer of a time-based operator (`debounce`, `timeout`): each restart starts a
/// new generation, so a timer that fires after it was superseded is recognised and ignored.
///
/// ```
/// restart() --> generation += 1, the old timer is handed out to be cancelled after the lock
/// install(timer, for: generation) --> kept if generation is current, else handed back (stale)
/// ```
struct TimerSlot {
  /// The generation of the latest restart.
  private(set) var generation: UInt64 = 0
  /// The running timer, once installed.
  private(set) var timer: (any Cancellable)?

  /// An empty slot.
  init() {}

  /// Starts a new generation; returns it and the superseded timer, to be cancelled after the lock.
  mutating func restart() -> (generation: UInt64, superseded: (any Cancellable)?) {
    generation &+= 1
    return (generation, timer.take())
  }

  /// Keeps `timer`, started for `generation`; returns `false` when a restart superseded it, and
  /// the caller cancels it after the lock.
  mutating func install(_ timer: any Cancellable, for generation: UInt64) -> Bool {
    guard generation == self.generation else { return false }
    precondition(self.timer == nil, "TimerSlot: a timer is already installed")
    self.timer = timer
    return true
  }

  /// Whether a timer started for `generation` is the current one.
  func isCurrent(_ generation: UInt64) -> Bool { generation == self.generation }

  /// Hands out the timer, to be cancelled after the lock.
  mutating func take() -> (any Cancellable)? { timer.take() }
}

extension Scheduler {
  /// Starts a timer that calls `fire` every `interval`, the first time `interval` from now; the
  /// caller keeps it in a ``TimerSlot`` and cancels it when it is superseded or done.
  func startTimer(
    every interval: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ fire: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    schedule(
      after: now.advanced(by: interval),
      interval: interval,
      tolerance: minimumTolerance,
      options: options,
      fire
    )
  }
}

/// A time-based operator's `State` whose live cases each hold a ``TimedOutlet``: it says how to
/// reach the outlet and how to end, and gets the demand and drain transitions shared by all.
protocol TimedOutletState {
  /// The subscriber type.
  associatedtype Downstream: Subscriber

  /// Runs `body` on the outlet of the current case; `nil` when it has none.
  mutating func withOutlet<Result>(
    _ body: (inout TimedOutlet<Downstream>) -> Result
  ) -> Result?

  /// Becomes terminal, once the outlet handed out the completion.
  mutating func end()
}

extension TimedOutletState {
  /// Adds demand; `true`: the caller claimed the drain.
  mutating func request(_ demand: Subscribers.Demand) -> Bool {
    withOutlet { $0.queue.request(demand) } ?? false
  }

  /// The drain's next step; the state is terminal once it hands out the completion.
  mutating func nextStep(adding more: Subscribers.Demand) -> TimedStep<Downstream>? {
    guard let step = withOutlet({ $0.nextStep(adding: more) }) ?? nil else { return nil }
    if step.isCompletion { end() }
    return step
  }
}
