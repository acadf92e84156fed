internal import StreamCore

/// Hands a value from the publisher's thread to the awaiting task.
///
/// The value is moved exactly once, from the subscriber's storage into the continuation, and
/// nothing else keeps a reference to it, so no two threads ever use it at the same time.
// Sendable: the wrapped value changes hands once and is never shared (see above).
package struct AsyncValuesTransfer<Value>: @unchecked Sendable {
  package let value: Value

  package init(value: Value) {
    self.value = value
  }
}

/// The subscriber behind `AsyncPublisher` and `AsyncThrowingPublisher`: a queue between the
/// publisher's calls and the tasks awaiting `next()`.
///
/// As in Combine, several tasks may wait on one iterator at once: each waiter asks for one
/// value (before the subscription, the waiters' demand adds up and is requested when it
/// arrives), values go to the waiters in the order they called `next()`, and cancelling any of
/// them, or calling `cancel()`, ends the iteration for all.
///
/// The decisions are ``AsyncValuesState``'s transitions, made under `lock`; the subscription,
/// the continuations and the upstream are called after it.
// Sendable: `state` is guarded by `lock`; the subscription, the continuations and the upstream
// are called after the lock is released.
final class AsyncValuesSubscriber<Input, Failure: Error>: @unchecked Sendable, Subscriber,
  Cancellable, CustomStringConvertible
{
  typealias Element = AsyncValuesTransfer<Result<Input, Failure>?>
  typealias Waiter = CheckedContinuation<Element, Never>

  private let lock = Lock()
  private var state = AsyncValuesState<Input, Failure, Waiter>.awaitingSubscription(.init())

  /// `nil`: request one value per `next()`, as Combine does.
  private let policy: ValuesBuffering?

  init(policy: ValuesBuffering?) {
    if case .bufferingOldest(let limit) = policy {
      precondition(limit > 0, "values(bufferingPolicy:): the limit must be positive, got \(limit)")
    }
    if case .bufferingNewest(let limit) = policy {
      precondition(limit > 0, "values(bufferingPolicy:): the limit must be positive, got \(limit)")
    }
    self.policy = policy
  }

  var description: String { policy == nil ? "AsyncPublisher" : "AsyncPublisher.Buffered" }

  func receive(subscription: any Subscription) {
    let action = lock.withLock { state.receive(subscription: subscription, policy: policy) }
    switch action {
    case .cancel: subscription.cancel()
    case .request(let demand): subscription.request(demand)
    case .none: break
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let received = lock.withLock { state.receive(input, policy: policy) }
    switch received {
    case .resume(let waiter):
      waiter.resume(returning: AsyncValuesTransfer(value: .success(input)))
    case .unrequested:
      // Combine traps here too: in the demand-driven mode a value is only ever requested for a
      // waiting task, so this upstream sent more than it was asked for.
      preconditionFailure("AsyncPublisher: received a value that no next() requested")
    case .endWaiters(let waiters):
      // A value with no subscription breaks the contract; Combine ends the waiting calls
      // without ending the iteration, and so do we.
      for waiter in waiters {
        waiter.resume(returning: AsyncValuesTransfer(value: nil))
      }
    case .buffered, .ignored:
      break
    }
    return .none
  }  // a value the buffering policy dropped is released here, after the lock

  func receive(completion: Subscribers.Completion<Failure>) {
    guard let completed = lock.withLock({ state.receive(completion: completion) }) else { return }
    var result = completion.asResult() as Result<Input, Failure>?
    for waiter in completed.waiters {
      waiter.resume(returning: AsyncValuesTransfer(value: result))
      result = nil  // the first waiter takes a failure; the others end
    }
  }  // the subscription is released here, after the lock

  /// The next value, `nil` at the end, or the failure once.
  func next(
    isolation actor: isolated (any Actor)? = #isolation
  ) async -> Result<Input, Failure>? {
    await withTaskCancellationHandler {
      await withCheckedContinuation(isolation: actor) { continuation in
        let action = lock.withLock { state.next(continuation, policy: policy) }
        switch action {
        case .resume(let result): continuation.resume(returning: AsyncValuesTransfer(value: result))
        case .request(let subscription): subscription.request(.max(1))
        case .wait: break
        }
      }.value
    } onCancel: {
      cancel()
    }
  }

  /// Stops: cancels the subscription, and every waiting `next()` returns `nil`.
  func cancel() {
    guard let cancelled = lock.withLock({ state.cancel() }) else { return }
    cancelled.subscription?.cancel()
    for waiter in cancelled.waiters {
      waiter.resume(returning: AsyncValuesTransfer(value: nil))
    }
  }  // the buffered values are released here, after the lock
}

extension Subscribers.Completion {
  /// What `next()` returns for this completion: `nil` for `.finished`, the failure otherwise.
  fileprivate func asResult<Input>() -> Result<Input, Failure>? {
    switch self {
    case .finished: nil
    case .failure(let error): .failure(error)
    }
  }
}

/// The state of an ``AsyncValuesSubscriber``, as data: each transition runs under its lock and
/// returns what to do after it. `Waiter` is an awaiting task's continuation.
///
/// ```
/// awaitingSubscription --next()--> awaitingSubscription, one more waiter and one more value
///                                  to request
/// awaitingSubscription --receive(subscription:)--> active (demand-driven: requests what the
///                                                  waiters asked for)
/// awaitingSubscription --value (a broken contract)--> awaitingSubscription without waiters
///                                                     (each gets nil; the demand stays)
/// active --next() with nothing buffered--> active, one more waiter (demand-driven:
///                                          request(.max(1)))
/// active with waiters --value--> active (the first waiter is resumed)
/// awaitingSubscription / active --completion--> terminal if there are waiters (the first
///                                               takes a failure, the others end), otherwise
///                                               ending (buffered values are still read)
/// ending --next() with nothing buffered--> terminal (the completion is returned once)
/// any --cancel()--> terminal (every waiter and every later next() gets nil)
/// ```
///
/// While subscribed in the demand-driven mode (no buffering policy), exactly one value is
/// outstanding per waiter, so no separate count records the demand. Waiters only wait on an
/// empty buffer.
enum AsyncValuesState<Input, Failure: Error, Waiter> {
  /// Before the subscription; tasks may already be waiting.
  case awaitingSubscription(Awaiting)
  /// Subscribed.
  case active(Active)
  /// The upstream completed: the buffered values, then the completion, are still to be read.
  case ending(Ending)
  /// The completion was read, or the iterator cancelled: `next()` returns `nil`.
  case terminal

  /// What exists before the subscription.
  struct Awaiting {
    /// The tasks waiting in `next()`, in the order they called it.
    var waiters = RingBuffer<Waiter>()
    /// How many values they asked for: requested when the subscription arrives. It outlives
    /// the waiters a value before the subscription ends, as in Combine.
    var demand = 0
  }

  /// What exists while subscribed.
  struct Active {
    /// The upstream's subscription.
    let subscription: any Subscription
    /// Values not read yet; empty while a task waits.
    var buffer = RingBuffer<Input>()
    /// The tasks waiting in `next()`, in the order they called it.
    var waiters: RingBuffer<Waiter>
  }

  /// What exists once the upstream completed.
  struct Ending {
    /// Values not read yet.
    var buffer: RingBuffer<Input>
    /// Returned by `next()` once the buffer is empty.
    let completion: Subscribers.Completion<Failure>
  }

  /// What to do with the subscription that arrived.
  enum SubscriptionAction {
    /// It came too late (a second one, or after completion or cancel): cancel it.
    case cancel
    /// Request this much.
    case request(Subscribers.Demand)
    /// Nothing yet: the first `next()` requests.
    case none
  }

  /// What a value did.
  enum Received {
    /// Resume this waiter with the value.
    case resume(Waiter)
    /// Buffered; `dropped` is the oldest value the policy dropped for it, to release after the
    /// lock.
    case buffered(dropped: Input?)
    /// Demand-driven, and no task waits for it: the upstream broke its demand.
    case unrequested
    /// It came before the subscription: end these waiting calls with `nil`.
    case endWaiters(RingBuffer<Waiter>)
    /// Not subscribed (before the subscription, or after the end): ignored.
    case ignored
  }

  /// What the upstream's completion lets go of, after the lock.
  struct Completed {
    /// The waiters to resume: the first with the completion, the others with `nil`.
    let waiters: RingBuffer<Waiter>
    /// The upstream's subscription (it completed).
    let subscription: (any Subscription)?
  }

  /// What `next()` does.
  enum NextAction {
    /// Resume at once with this element (`nil`: the end).
    case resume(Result<Input, Failure>?)
    /// The waiter is stored; request one value from this subscription.
    case request(any Subscription)
    /// The waiter is stored; a value or the completion will resume it.
    case wait
  }

  /// What `cancel()` lets go of, after the lock.
  struct Cancelled {
    /// The waiters to resume with `nil`.
    let waiters: RingBuffer<Waiter>
    /// The subscription to cancel.
    let subscription: (any Subscription)?
    /// The values not read.
    let buffer: RingBuffer<Input>
  }

  /// Stores the first subscription; with a buffering `policy` it asks for everything, otherwise
  /// for one value per task already waiting.
  mutating func receive(
    subscription: any Subscription,
    policy: ValuesBuffering?
  ) -> SubscriptionAction {
    guard case .awaitingSubscription(let awaiting) = self else { return .cancel }
    self = .active(Active(subscription: subscription, waiters: awaiting.waiters))
    if policy != nil { return .request(.unlimited) }
    return awaiting.demand == 0 ? .none : .request(.max(awaiting.demand))
  }

  /// A value: it goes to the first waiter, or into the buffer as `policy` says.
  mutating func receive(_ input: Input, policy: ValuesBuffering?) -> Received {
    if case .awaitingSubscription(var awaiting) = self {
      let waiters = awaiting.waiters
      awaiting.waiters = RingBuffer()
      self = .awaitingSubscription(awaiting)
      return waiters.isEmpty ? .ignored : .endWaiters(waiters)
    }
    guard case .active(var active) = self else { return .ignored }
    self = .terminal
    defer { self = .active(active) }
    if let waiter = active.waiters.popFirst() { return .resume(waiter) }
    switch policy {
    case nil:
      return .unrequested
    case .bufferingOldest(let limit) where active.buffer.count >= limit:
      return .buffered(dropped: nil)  // the caller still holds `input`, which is dropped
    case .bufferingNewest(let limit) where active.buffer.count >= limit:
      let dropped = active.buffer.popFirst()
      active.buffer.append(input)
      return .buffered(dropped: dropped)
    default:
      active.buffer.append(input)
      return .buffered(dropped: nil)
    }
  }

  /// The upstream completed: waiting tasks take the completion at once; otherwise it waits
  /// behind the buffered values. `nil` when it came after the end.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Completed? {
    let waiters: RingBuffer<Waiter>
    let subscription: (any Subscription)?
    var buffer = RingBuffer<Input>()
    switch self {
    case .awaitingSubscription(let awaiting):
      waiters = awaiting.waiters
      subscription = nil
    case .active(let active):
      waiters = active.waiters
      subscription = active.subscription
      buffer = active.buffer
    case .ending, .terminal:
      return nil
    }
    // Tasks only wait on an empty buffer, so they take the completion.
    self = waiters.isEmpty ? .ending(Ending(buffer: buffer, completion: completion)) : .terminal
    return Completed(waiters: waiters, subscription: subscription)
  }

  /// A `next()` call: a buffered value, the completion once, `nil` at the end, or `waiter` is
  /// queued (asking for one value when subscribed and there is no buffering `policy`).
  mutating func next(_ waiter: Waiter, policy: ValuesBuffering?) -> NextAction {
    switch self {
    case .awaitingSubscription(var awaiting):
      self = .terminal
      awaiting.waiters.append(waiter)
      awaiting.demand += 1
      self = .awaitingSubscription(awaiting)
      return .wait
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      if let value = active.buffer.popFirst() { return .resume(.success(value)) }
      active.waiters.append(waiter)
      return policy == nil ? .request(active.subscription) : .wait
    case .ending(var ending):
      self = .terminal
      if let value = ending.buffer.popFirst() {
        self = .ending(ending)
        return .resume(.success(value))
      }
      switch ending.completion {
      case .finished: return .resume(nil)
      case .failure(let error): return .resume(.failure(error))
      }
    case .terminal:
      return .resume(nil)
    }
  }

  /// Ends everything; `nil` once terminal.
  mutating func cancel() -> Cancelled? {
    switch self {
    case .awaitingSubscription(let awaiting):
      self = .terminal
      return Cancelled(waiters: awaiting.waiters, subscription: nil, buffer: RingBuffer())
    case .active(let active):
      self = .terminal
      return Cancelled(
        waiters: active.waiters,
        subscription: active.subscription,
        buffer: active.buffer
      )
    case .ending(let ending):
      self = .terminal
      return Cancelled(waiters: RingBuffer(), subscription: nil, buffer: ending.buffer)
    case .terminal:
      return nil
    }
  }
}

/// Cancels the subscriber when the iterator that owns it goes away, so an abandoned loop
/// releases its upstream.
// Sendable: only holds the subscriber, which is Sendable.
final class AsyncValuesLifetime<Input, Failure: Error>: Sendable {
  let subscriber: AsyncValuesSubscriber<Input, Failure>

  init(_ subscriber: AsyncValuesSubscriber<Input, Failure>) {
    self.subscriber = subscriber
  }

  deinit {
    subscriber.cancel()
  }
}
