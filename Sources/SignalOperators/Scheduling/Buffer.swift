public import StreamCore

extension Publisher {
  /// Buffers values from the upstream until the downstream asks for them.
  ///
  /// ```swift
  /// sensor.readings
  ///   .buffer(size: 100, prefetch: .keepFull, whenFull: .dropOldest)
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { store($0) })
  /// ```
  ///
  /// With ``StreamCore/Publishers/PrefetchStrategy/keepFull`` the operator requests `size`
  /// values as soon as it is subscribed, and as many more as went downstream after each
  /// delivery (returned from `receive(_:)`, or requested after the subscriber's request was
  /// served), so the buffer stays full. With ``StreamCore/Publishers/PrefetchStrategy/byRequest``
  /// it requests `.unlimited` as soon as it is subscribed, as Combine does. Buffered values go
  /// downstream in order as demand arrives. As in Combine:
  /// - the upstream's `.finished` goes downstream after the buffered values, once the subscriber
  ///   has demand (a subscriber that got exactly what it asked for sees `.finished` on its next
  ///   request);
  /// - the upstream's failure goes downstream at once, after the buffered values the
  ///   subscriber's demand covers; the others are dropped;
  /// - a value that arrives while `size` values are buffered is handled by `whenFull`: dropped,
  ///   or kept in place of the oldest, or (`.customError`) the upstream is cancelled and the
  ///   strategy's error goes downstream on the subscriber's next request, after the buffered
  ///   values that request covers.
  ///
  /// > Thread safety: Upstream may send from any thread. A value goes downstream either on the
  /// > thread that sent it or on the thread whose `request(_:)` made room for it, never from two
  /// > threads at once and never recursively. `request(_:)` and `cancel()` are safe from any
  /// > thread; nothing is delivered after `cancel()` returns on the delivering thread.
  ///
  /// - Parameters:
  ///   - size: The most values to hold. With 0, as in Combine, every value finds the buffer
  ///     full (`.dropOldest` still lets the newest through).
  ///   - prefetch: When to request values from the upstream.
  ///   - whenFull: What to do with a value that arrives while the buffer is full.
  /// - Returns: A publisher that buffers upstream values.
  public func buffer(
    size: Int,
    prefetch: Publishers.PrefetchStrategy,
    whenFull: Publishers.BufferingStrategy<Failure>
  ) -> Publishers.Buffer<Self> {
    Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
  }
}

extension Publishers {
  /// When a buffer requests values from its upstream.
  ///
  /// ```swift
  /// upstream.buffer(size: 10, prefetch: .byRequest, whenFull: .dropNewest)
  /// ```
  ///
  /// > Thread safety: A `Sendable` value.
  public enum PrefetchStrategy: Hashable, Sendable {
    /// Request `size` values at once and one more for each value sent downstream.
    case keepFull

    /// Request `.unlimited` at once; the buffer holds values until the subscriber asks.
    case byRequest
  }

  /// What a buffer does with a value that arrives while it is full.
  ///
  /// ```swift
  /// upstream.buffer(size: 10, prefetch: .keepFull, whenFull: .customError { MyError.overflow })
  /// ```
  ///
  /// > Thread safety: A value type. The `customError` closure runs on the thread that sent the
  /// > value that overflowed the buffer.
  public enum BufferingStrategy<Failure: Error> {
    /// Drop the value that arrived.
    case dropNewest

    /// Drop the oldest buffered value and keep the one that arrived.
    case dropOldest

    /// Cancel the upstream and fail with the error the closure makes.
    case customError(() -> Failure)
  }

  /// A publisher that buffers values from its upstream until the downstream asks for them.
  ///
  /// ```swift
  /// let buffered = Publishers.Buffer(
  ///   upstream: values, size: 3, prefetch: .keepFull, whenFull: .dropNewest)
  /// ```
  ///
  /// See ``StreamCore/Publisher/buffer(size:prefetch:whenFull:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Buffer<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are buffered.
    public let upstream: Upstream

    /// The most values held.
    public let size: Int

    /// When values are requested from the upstream.
    public let prefetch: PrefetchStrategy

    /// What happens to a value that arrives while the buffer is full.
    public let whenFull: BufferingStrategy<Failure>

    /// Creates a buffering publisher.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are buffered.
    ///   - size: The most values to hold. With 0, as in Combine, every value finds the buffer
    ///     full (`.dropOldest` still lets the newest through).
    ///   - prefetch: When to request values from the upstream.
    ///   - whenFull: What to do with a value that arrives while the buffer is full.
    public init(
      upstream: Upstream,
      size: Int,
      prefetch: PrefetchStrategy,
      whenFull: BufferingStrategy<Failure>
    ) {
      self.upstream = upstream
      self.size = size
      self.prefetch = prefetch
      self.whenFull = whenFull
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        Inner(downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull)
      )
    }
  }
}

extension Publishers.Buffer {
  /// Decides under `lock`, in ``BufferState``, and acts after it. The thread that claims the
  /// queue's drain delivers; a value's refill request (`.keepFull`) goes upstream just before
  /// the value goes downstream.
  // Sendable: state is guarded by `lock`; calls out happen outside it, by the draining thread.
  fileprivate final class Inner<Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    private var state: BufferState<Downstream>
    /// The thread calling `.customError`'s closure, while it runs.
    private var errorMaker: ThreadID?
    /// Whether the subscriber cancelled: no refill goes upstream after that.
    private var cancelled = false
    private let size: Int
    private let prefetch: Publishers.PrefetchStrategy
    private let whenFull: Publishers.BufferingStrategy<Failure>

    init(
      downstream: Downstream,
      size: Int,
      prefetch: Publishers.PrefetchStrategy,
      whenFull: Publishers.BufferingStrategy<Failure>
    ) {
      state = .awaitingSubscription(downstream)
      self.size = size
      self.prefetch = prefetch
      self.whenFull = whenFull
    }

    func receive(subscription: any Subscription) {
      guard let downstream = lock.withLock({ state.receive(subscription: subscription) }) else {
        subscription.cancel()
        return
      }
      // As Combine: the prefetch goes upstream before the subscriber gets its subscription;
      // `.byRequest` asks for everything at once (the buffer holds what the subscriber has
      // not asked for yet, so its demand is never exceeded). This thread holds the drain
      // until the subscriber has its subscription, so what the upstream sends synchronously
      // waits in the buffer.
      subscription.request(prefetch == .keepFull ? .max(size) : .unlimited)
      downstream.receive(subscription: self)
      let refill = drain()
      if refill > .none { lock.withLock { state.upstream }?.request(refill) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let outcome = lock.withLock { () -> BufferState<Downstream>.ValueOutcome in
        // Combine calls `.customError`'s closure holding its lock, so a value the closure sends
        // to this buffer crashes there (OpenCombine's `testDeadlockWhenErroringOnFullBuffer`).
        if let maker = errorMaker {
          precondition(
            maker != ThreadID.current,
            "buffer: the .customError closure sent a value to the same buffer"
          )
        }
        return state.receive(input, size: size, whenFull: whenFull)
      }
      switch outcome {
      case .buffered, .dropped:
        return .none  // a dropped value is released here, after the lock
      case .drain:
        // A value dropped to make room is released after the lock, with `outcome`. As
        // Combine's, the refill for what this drain delivered is the demand returned.
        return drain()
      case .overflow(let upstream):
        // As Combine: the upstream is cancelled, the buffered values stay, and the error waits
        // for the subscriber's next request.
        // As Combine: the error is made first, then the upstream is cancelled.
        guard case .customError(let makeError) = whenFull else { return .none }
        let me = ThreadID.current
        lock.withLock { errorMaker = me }
        let error = makeError()
        let unused = lock.withLock { () -> Failure? in
          errorMaker = nil
          return state.fail(error)
        }
        _ = consume unused  // released after the lock
        upstream.cancel()
        return .none
      }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let completed = lock.withLock({ state.receive(completion: completion) }) else {
        return
      }
      _ = completed.upstream  // released after the lock
      if completed.claimed { _ = drain() }  // no refill: the upstream completed
    }

    func request(_ demand: Subscribers.Demand) {
      guard demand > .none else { return }  // Combine ignores request(.none) here
      let requested = lock.withLock { state.request(demand) }
      guard requested.claimed else { return }
      // As Combine's: the refill goes to the upstream the request found, even if the drain ended
      // the subscription meanwhile (an overflow cancelled the upstream, or the completion was
      // delivered); not after the subscriber cancelled (nothing goes upstream after its end).
      let refill = drain()
      guard refill > .none, !lock.withLock({ cancelled }) else { return }
      requested.upstream?.request(refill)
    }

    func cancel() {
      let ended = lock.withLock { () -> BufferState<Downstream>.Cancelled? in
        cancelled = true
        return state.cancel()
      }
      guard let ended else { return }
      ended.upstream?.cancel()
    }  // the buffered values, a pending completion and the subscriber are released here

    /// Runs the claimed drain; returns the refill (`.keepFull`): as many as the values it
    /// delivered that count toward it.
    private func drain() -> Subscribers.Demand {
      var more = Subscribers.Demand.none
      var delivered = 0
      SerialDrain.run(lock) {
        state.nextStep(adding: more, refills: prefetch == .keepFull)
      } perform: { step in
        switch consume step {
        case .value(let downstream, let value, let refills):
          if refills { delivered += 1 }
          more = downstream.receive(value)
          return true
        case .completion(let downstream, let completion):
          downstream.receive(completion: completion)
          return false
        }
      }
      return .max(delivered)
    }
  }
}

/// The state of a `buffer` subscription, as data: each transition runs under the operator's
/// lock and returns what to do after it.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active
/// active --upstream completion--> ending (the queue drains, then the completion)
/// active --overflow with .customError--> overflowed --next request or drain--> ending
/// active / overflowed / ending --completion delivered / cancel()--> terminal
/// ```
///
/// As Combine's: `.finished` waits for demand once the values are out; a failure goes at once,
/// after the values the demand covers (`DeliveryQueue`'s `.afterDemandedValues`).
enum BufferState<Downstream: Subscriber> {
  typealias Value = Downstream.Input
  typealias Failure = Downstream.Failure

  /// Before the upstream's subscription arrives.
  case awaitingSubscription(Downstream)
  /// Subscribed: values are buffered until the subscriber asks for them.
  case active(Active)
  /// The buffer overflowed with `.customError` and the upstream is cancelled; the error (once
  /// made) waits for the subscriber's next request, or for a drain already under way. With
  /// `.keepFull`, values delivered from here on are still refilled from the cancelled upstream
  /// (`refill`), as Combine's are (OpenCombine's `testRequestingFiniteDemandKeepFullCustomError`):
  /// a subscription ignores requests after its cancel.
  case overflowed(Outlet, Failure?, refill: any Subscription)
  /// The upstream is gone; the buffered values, then the completion, are still to go. `refill`
  /// after an overflow (see `overflowed`).
  case ending(Outlet, refill: (any Subscription)?)
  /// Completed or cancelled: everything is released.
  case terminal

  /// The subscriber and the values waiting for its demand.
  typealias Outlet = DeliveryOutlet<Downstream>

  /// What exists while subscribed.
  struct Active {
    /// The upstream's subscription.
    var upstream: any Subscription
    /// The subscriber's end.
    var outlet: Outlet
  }

  /// What a value from the upstream leads to.
  enum ValueOutcome {
    /// Buffered, or ignored after the end: nothing to do.
    case buffered
    /// A value was dropped (`.dropNewest`, `.dropOldest`, or after the end); released after the lock.
    case dropped(Value)
    /// The caller claimed the drain; `dropped` (`.dropOldest`) is released after the lock.
    case drain(dropped: Value?)
    /// The buffer overflowed with `.customError`: cancel the upstream, make the error,
    /// ``fail(_:)``.
    case overflow(any Subscription)
  }

  /// What the upstream's completion hands out.
  struct Completed {
    /// The upstream's subscription, released after the lock.
    let upstream: any Subscription
    /// Whether the caller claimed the drain.
    let claimed: Bool
  }

  /// What a request hands out.
  struct Requested {
    /// The upstream, while subscribed.
    let upstream: (any Subscription)?
    /// Whether the caller claimed the drain.
    let claimed: Bool
  }

  /// What `cancel()` lets go of, after the lock.
  struct Cancelled {
    /// The upstream's subscription to cancel (`nil` once it completed).
    let upstream: (any Subscription)?
    /// The subscriber.
    let downstream: Downstream
    /// The buffered values and a completion not yet delivered.
    let remains: DeliveryQueueRemains<Value, Failure>?
    /// An overflow error not yet delivered.
    let overflowError: Failure?
  }

  /// One delivery of the drain, performed outside the lock.
  enum Step {
    /// Deliver a value; `refills`: it counts toward the refill (`.keepFull`, while active).
    case value(Downstream, Value, refills: Bool)
    /// Deliver the completion; the state is terminal.
    case completion(Downstream, Subscribers.Completion<Failure>)
  }

  /// The upstream's subscription while subscribed.
  var upstream: (any Subscription)? {
    if case .active(let active) = self { return active.upstream }
    return nil
  }

  /// Stores the upstream's subscription and claims the drain for the caller; returns the
  /// subscriber to hand this subscription to, or `nil` when the subscription must be cancelled
  /// (a second one, or after `cancel()`).
  mutating func receive(subscription: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream) = self else { return nil }
    var outlet = Outlet(downstream)
    outlet.queue = DeliveryQueue(
      failureOrder: .afterDemandedValues,
      finishAwaitsDemand: true,
      batches: true
    )
    _ = outlet.queue.drain.claim()  // the first claim: it succeeds
    self = .active(Active(upstream: subscription, outlet: outlet))
    return downstream
  }

  /// Buffers `value`, applying `whenFull` when `size` values are already buffered.
  mutating func receive(
    _ value: Value,
    size: Int,
    whenFull: Publishers.BufferingStrategy<Failure>
  ) -> ValueOutcome {
    guard case .active(var active) = self else { return .dropped(value) }
    self = .terminal
    var dropped: Value?
    if active.outlet.queue.values.count >= size {
      switch whenFull {
      case .dropNewest:
        self = .active(active)
        return .dropped(value)
      case .dropOldest:
        dropped = active.outlet.queue.values.popFirst()
      case .customError:
        self = .overflowed(active.outlet, nil, refill: active.upstream)
        return .overflow(active.upstream)
      }
    }
    let claimed = active.outlet.queue.enqueue(value)
    self = .active(active)
    return claimed ? .drain(dropped: dropped) : dropped.map(ValueOutcome.dropped) ?? .buffered
  }

  /// The overflow error is made. It waits for the subscriber's next request, as in Combine;
  /// when a drain is under way it is queued at once, for that drain. Returns the error when
  /// it is not used (cancelled meanwhile), to release after the lock.
  mutating func fail(_ error: Failure) -> Failure? {
    guard case .overflowed(var outlet, nil, let refill) = self else { return error }
    guard outlet.queue.drain.isClaimed else {
      self = .overflowed(outlet, error, refill: refill)
      return nil
    }
    self = .terminal
    // The drain is claimed: its runner delivers.
    _ = outlet.queue.finish(.failure(error), arriving: false)
    self = .ending(outlet, refill: refill)
    return nil
  }

  /// The upstream completed: the completion goes after the buffered values.
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Completed? {
    guard case .active(var active) = self else { return nil }
    self = .terminal
    let claimed = active.outlet.queue.finish(completion)
    self = .ending(active.outlet, refill: nil)
    return Completed(upstream: active.upstream, claimed: claimed)
  }

  /// Adds the subscriber's demand.
  mutating func request(_ demand: Subscribers.Demand) -> Requested {
    switch self {
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      return Requested(upstream: active.upstream, claimed: active.outlet.queue.request(demand))
    case .overflowed(var outlet, let error, let refill):
      self = .terminal
      var claimed = outlet.queue.request(demand)
      guard let error else {
        self = .overflowed(outlet, nil, refill: refill)
        return Requested(upstream: refill, claimed: claimed)
      }
      if outlet.queue.finish(.failure(error), arriving: false) { claimed = true }
      self = .ending(outlet, refill: refill)
      return Requested(upstream: refill, claimed: claimed)
    case .ending(var outlet, let refill):
      self = .terminal
      defer { self = .ending(outlet, refill: refill) }
      return Requested(upstream: refill, claimed: outlet.queue.request(demand))
    case .awaitingSubscription, .terminal:
      return Requested(upstream: nil, claimed: false)
    }
  }

  /// The drain's next step; `nil` after releasing the drain, or once terminal. `more` is the
  /// demand the previous value returned.
  mutating func nextStep(adding more: Subscribers.Demand, refills: Bool) -> Step? {
    switch self {
    case .active(var active):
      self = .terminal
      defer { self = .active(active) }
      switch active.outlet.queue.nextStep(adding: more) {
      case .value(let value)?:
        return .value(active.outlet.downstream, value, refills: refills)
      case .completion?, nil:
        return nil  // an active queue has no completion
      }
    case .overflowed(var outlet, let error, let refill):
      self = .terminal
      if let error {  // this drain is the next one: the error goes after what demand covers
        _ = outlet.queue.finish(.failure(error), arriving: false)
        self = .ending(outlet, refill: refill)
        return nextStep(adding: more, refills: refills)
      }
      defer { self = .overflowed(outlet, nil, refill: refill) }
      switch outlet.queue.nextStep(adding: more) {
      case .value(let value)?:
        return .value(outlet.downstream, value, refills: refills)
      case .completion?, nil:
        return nil  // the queue has no completion until the error is made
      }
    case .ending(var outlet, let refill):
      self = .terminal
      switch outlet.queue.nextStep(adding: more) {
      case .value(let value)?:
        self = .ending(outlet, refill: refill)
        return .value(outlet.downstream, value, refills: refills && refill != nil)
      case .completion(let completion, _)?:
        return .completion(outlet.downstream, completion)
      case nil:
        self = .ending(outlet, refill: refill)
        return nil
      }
    case .awaitingSubscription, .terminal:
      return nil
    }
  }

  /// Ends everything; `nil` when there is nothing to end.
  mutating func cancel() -> Cancelled? {
    switch self {
    case .active(var active):
      self = .terminal
      return Cancelled(
        upstream: active.upstream,
        downstream: active.outlet.downstream,
        remains: active.outlet.queue.cancel(),
        overflowError: nil
      )
    case .overflowed(var outlet, let error, _):
      self = .terminal
      return Cancelled(
        upstream: nil,
        downstream: outlet.downstream,
        remains: outlet.queue.cancel(),
        overflowError: error
      )
    case .ending(var outlet, _):
      self = .terminal
      return Cancelled(
        upstream: nil,
        downstream: outlet.downstream,
        remains: outlet.queue.cancel(),
        overflowError: nil
      )
    case .awaitingSubscription(let downstream):
      self = .terminal
      return Cancelled(upstream: nil, downstream: downstream, remains: nil, overflowError: nil)
    case .terminal:
      return nil
    }
  }
}

extension Publishers.Buffer.Inner: CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
{
  /// `Buffer`, as Combine's.
  var description: String { "Buffer" }

  /// The description, as Combine's playground display.
  var playgroundDescription: Any { description }

  /// As Combine's: the buffered `values`, the `state` (`subscribed(upstream)` or `terminal`),
  /// the `downstreamDemand` not yet met, and the completion waiting behind the values
  /// (`terminal`). Empty once the subscription ended and let go of them.
  var customMirror: Mirror {
    typealias Snapshot = (
      values: [Downstream.Input], state: SubscriptionStatus, demand: Subscribers.Demand,
      completion: Subscribers.Completion<Downstream.Failure>?
    )
    let snapshot = lock.withLock { () -> Snapshot in
      switch state {
      case .awaitingSubscription:
        return ([], .awaitingSubscription, .none, nil)
      case .active(let active):
        let queue = active.outlet.queue
        return (Array(queue.values), .subscribed(active.upstream), queue.demand, queue.completion)
      case .overflowed(let outlet, let error, _):
        let queue = outlet.queue
        return (Array(queue.values), .terminal, queue.demand, error.map { .failure($0) })
      case .ending(let outlet, _):
        let queue = outlet.queue
        return (Array(queue.values), .terminal, queue.demand, queue.completion)
      case .terminal:
        return ([], .terminal, .none, nil)
      }
    }
    return Mirror(
      self,
      children: [
        "values": snapshot.values, "state": snapshot.state,
        "downstreamDemand": snapshot.demand, "terminal": snapshot.completion as Any,
      ]
    )
  }
}
