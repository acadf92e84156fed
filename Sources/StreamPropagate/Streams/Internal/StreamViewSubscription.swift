import FutureKit
import StreamCore

/// What a publisher view does with one state.
enum StreamViewStep<Output, Failure: Error> {
  /// Deliver a value (it needs demand).
  case send(Output)

  /// Nothing.
  case skip

  /// End: deliver `last` first if there is demand for it, then the completion.
  case end(last: Output?, Subscribers.Completion<Failure>)
}

/// The subscription behind a stream's StreamCore `Publisher` views: it registers a callback on
/// the stream, turns states into values and a completion with `step`, and honours demand.
///
/// - Values that arrive without demand are dropped, as `PassthroughSubject` does, except for
///   stateful streams (`keepsLatest`), which keep the latest and deliver it on the next request,
///   as `CurrentValueSubject` does; so a new subscriber gets the replayed state on its first
///   demand.
/// - One thread delivers at a time: the one holding the state's `SerialDrain`, which runs
///   `SerialDrain.run`. The subscribing thread holds it from the start until
///   `receive(subscription:)` has returned, so nothing overtakes it. A value offered while
///   another delivery is under way takes its demand at once and waits in the queue; a request
///   made meanwhile only adds demand, and the delivering thread loops. So `request` from inside
///   `receive(_:)` never recurses.
///
/// The decisions are ``StreamViewState``'s transitions, made under `lock`.
// Sendable: every mutable property is in `state`, guarded by `lock`; downstream and the stream
// are called after it.
final class StreamViewSubscription<T, E: Error, Downstream: Subscriber>: Subscription,
  @unchecked Sendable, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
{
  typealias Output = Downstream.Input
  typealias Failure = Downstream.Failure
  typealias State = StreamViewState<T, E, Downstream>

  private let lock = Lock()
  private var state: State
  private let keepsLatest: Bool
  private let step: (StreamState<T, E>) -> StreamViewStep<Output, Failure>

  private init(
    downstream: Downstream,
    source: StreamSubscriber<T, E>,
    step: @escaping (StreamState<T, E>) -> StreamViewStep<Output, Failure>
  ) {
    state = State(downstream: downstream, source: source)
    self.keepsLatest = source.keepsState
    self.step = step
  }

  /// Subscribes `downstream` to `source` through a new subscription.
  static func attach(
    _ downstream: Downstream,
    to source: StreamSubscriber<T, E>,
    step: @escaping (StreamState<T, E>) -> StreamViewStep<Output, Failure>
  ) {
    let subscription = StreamViewSubscription(downstream: downstream, source: source, step: step)
    let callback = source.addCallback(.inline) { [weak subscription] state in
      subscription?.offer(state)
    }
    let stale = subscription.lock.withLock { subscription.state.install(callback) }
    if let stale { source.removeCallback(stale) }
    downstream.receive(subscription: subscription)
    subscription.drain(downstream, adding: .none)
  }

  private func offer(_ state: StreamState<T, E>) {
    switch step(state) {
    case .skip:
      return
    case .send(let value):
      let offered = lock.withLock { self.state.offer(value, keepsLatest: keepsLatest) }
      if case .drain(let downstream, _) = offered {
        drain(downstream, adding: .none)
      }  // a superseded latest value is released here, after the lock
    case .end(let last, let completion):
      let downstream = lock.withLock { self.state.end(last: last, completion) }
      if let downstream { drain(downstream, adding: .none) }
    }
  }

  /// Delivers while this thread holds the drain: queued values, then the ending, then the
  /// latest value if there is demand; lets go when nothing is left.
  private func drain(_ downstream: Downstream, adding initial: Subscribers.Demand) {
    var more = initial
    SerialDrain.run(lock) {
      state.nextStep(adding: more)
    } perform: { step in
      switch consume step {
      case .value(let value):
        more = downstream.receive(value)
        return true
      case .completion(let completion, let released):
        downstream.receive(completion: completion)
        release(released)
        return false
      }
    }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let downstream = lock.withLock { state.request(demand) }
    if let downstream { drain(downstream, adding: demand) }
  }

  func cancel() {
    let released = lock.withLock { state.cancel() }
    if let released { release(released) }
  }

  /// Unregisters from the stream and lets go of it, outside the lock.
  private func release(_ released: State.Released) {
    if let callback = released.callback { released.source.removeCallback(callback) }
  }

  var description: String {
    "StreamSubscriber"
  }

  /// The `downstream` (`nil` once released) and its `demand` not yet met.
  var customMirror: Mirror {
    let (downstream, demand) = lock.withLock { () -> (Downstream?, Subscribers.Demand) in
      switch state {
      case .active(let outlet): (outlet.downstream, outlet.demand)
      case .ending(let ending): (ending.outlet.downstream, ending.outlet.demand)
      case .terminal: (nil, .none)
      }
    }
    return Mirror(self, children: ["downstream": downstream as Any, "demand": demand])
  }

  var playgroundDescription: Any { description }
}

/// The state of a ``StreamViewSubscription``, as data: each transition runs under the
/// subscription's lock and returns what to do after it.
///
/// ```
/// active (the subscribing thread holds the drain) --end(last:_:)--> ending
/// active / ending --request, offer: the drain is claimed--> the claiming thread delivers
/// ending --completion delivered / cancel()--> terminal;  active --cancel()--> terminal
/// ```
enum StreamViewState<T, E: Error, Downstream: Subscriber> {
  typealias Output = Downstream.Input
  typealias Failure = Downstream.Failure

  /// Subscribed: values flow.
  case active(Outlet)
  /// The stream ended: the queued values, then `last` if there is demand for it, then the
  /// completion are still to go.
  case ending(Ending)
  /// Completed or cancelled: nothing is held.
  case terminal

  /// What exists while subscribed.
  struct Outlet {
    /// Who receives the values.
    let downstream: Downstream
    /// The stream, kept alive while the subscription lasts.
    let source: StreamSubscriber<T, E>
    /// The callback registered on `source`, once registered.
    var callback: StreamCallback<T, E>?
    /// The subscriber's outstanding demand; a queued value has already taken its share.
    var demand = Subscribers.Demand.none
    /// Claimed by the delivering thread; the subscribing thread holds it from the start.
    var drain = SerialDrain()
    /// Values offered while another thread was delivering, oldest first.
    var queue = RingBuffer<Output>()
    /// A stateful stream's latest value that arrived without demand.
    var latest: Output?

    /// A subscribed outlet whose drain the subscribing thread holds.
    init(downstream: Downstream, source: StreamSubscriber<T, E>) {
      self.downstream = downstream
      self.source = source
      _ = drain.claim()
    }
  }

  /// What exists once the stream ended.
  struct Ending {
    /// The subscriber's end.
    var outlet: Outlet
    /// A last value, delivered after the queued ones if there is demand for it.
    var last: Output?
    /// The completion, delivered last.
    let completion: Subscribers.Completion<Failure>
  }

  /// What an offered value decided.
  enum Offered {
    /// Nothing more to do. `released` is a superseded latest value, to let go of after the lock.
    case done(released: Output?)
    /// The caller claimed the drain and must run it for `Downstream`; `released` is the latest
    /// value this newer one supersedes.
    case drain(Downstream, released: Output?)
  }

  /// What the subscription lets go of when it ends, after the lock.
  struct Released {
    /// The subscriber.
    let downstream: Downstream
    /// The stream, to unregister `callback` from.
    let source: StreamSubscriber<T, E>
    /// The callback to unregister.
    let callback: StreamCallback<T, E>?
    /// Values not delivered.
    let queue: RingBuffer<Output>
    /// A kept latest value, not delivered.
    let latest: Output?
    /// The ending's last value, not delivered.
    let last: Output?
    /// A completion not delivered (cancelled while ending).
    let completion: Subscribers.Completion<Failure>?

    /// What `outlet` holds, with an ending's undelivered `last` value and `completion`.
    init(_ outlet: Outlet, last: Output? = nil, completion: Subscribers.Completion<Failure>? = nil)
    {
      downstream = outlet.downstream
      source = outlet.source
      callback = outlet.callback
      queue = outlet.queue
      latest = outlet.latest
      self.last = last
      self.completion = completion
    }
  }

  /// One delivery of the drain, performed outside the lock.
  enum Step {
    /// Deliver a value.
    case value(Output)
    /// Deliver the completion, then let go of `Released`; the state is terminal.
    case completion(Subscribers.Completion<Failure>, Released)
  }

  /// A subscribed state whose drain the subscribing thread holds.
  init(downstream: Downstream, source: StreamSubscriber<T, E>) {
    self = .active(Outlet(downstream: downstream, source: source))
  }

  /// Changes the outlet in place, in either live state; `nil` once terminal.
  private mutating func withOutlet<Result>(_ body: (inout Outlet) -> Result) -> Result? {
    switch self {
    case .active(var outlet):
      self = .terminal
      defer { self = .active(outlet) }
      return body(&outlet)
    case .ending(var ending):
      self = .terminal
      defer { self = .ending(ending) }
      return body(&ending.outlet)
    case .terminal:
      return nil
    }
  }

  /// Stores the callback registered on the stream; returns it if the subscription ended
  /// meanwhile, for the caller to unregister.
  mutating func install(_ callback: StreamCallback<T, E>) -> StreamCallback<T, E>? {
    let installed: Void? = withOutlet { $0.callback = callback }
    return installed == nil ? callback : nil
  }

  /// A value for the subscriber: it takes a unit of demand and goes now (the caller claimed the
  /// drain) or after the delivery under way; without demand a stateful stream (`keepsLatest`)
  /// keeps it as the latest, a plain one drops it.
  mutating func offer(_ value: Output, keepsLatest: Bool) -> Offered {
    guard case .active(var outlet) = self else { return .done(released: nil) }
    self = .terminal
    defer { self = .active(outlet) }
    guard outlet.demand > .none else {
      guard keepsLatest else { return .done(released: nil) }
      let superseded = outlet.latest.take()
      outlet.latest = value
      return .done(released: superseded)
    }
    outlet.demand -= 1
    outlet.queue.append(value)
    // A kept value is older than this one: it must not follow it, whoever delivers.
    let superseded = outlet.latest.take()
    guard outlet.drain.claim() else { return .done(released: superseded) }
    return .drain(outlet.downstream, released: superseded)
  }

  /// The stream ended: `last` (if there is demand for it) and the completion go after the
  /// queued values. Returns the subscriber if the caller claimed the drain.
  mutating func end(
    last: Output?,
    _ completion: Subscribers.Completion<Failure>
  ) -> Downstream? {
    guard case .active(var outlet) = self else { return nil }
    let claimed = outlet.drain.claim()
    self = .ending(Ending(outlet: outlet, last: last, completion: completion))
    return claimed ? outlet.downstream : nil
  }

  /// Adds the subscriber's demand, or, when a kept latest value can now go and nobody is
  /// delivering, claims the drain and returns the subscriber; the drain then adds the demand.
  mutating func request(_ demand: Subscribers.Demand) -> Downstream? {
    withOutlet { outlet -> Downstream? in
      guard !outlet.drain.isClaimed, outlet.latest != nil, outlet.drain.claim() else {
        outlet.demand += demand
        return nil
      }
      return outlet.downstream
    } ?? nil
  }

  /// The drain's next step, after adding `more`, the demand the previous value returned: a
  /// queued value, then (ending) the last value if there is demand and the completion, or
  /// (active) the kept latest value if there is demand. `nil` after releasing the drain, or
  /// once terminal.
  mutating func nextStep(adding more: Subscribers.Demand) -> Step? {
    switch self {
    case .active(var outlet):
      self = .terminal
      defer { self = .active(outlet) }
      outlet.demand += more
      if let value = outlet.queue.popFirst() { return .value(value) }
      if outlet.demand > .none, let value = outlet.latest.take() {
        outlet.demand -= 1
        return .value(value)
      }
      outlet.drain.release()
      return nil
    case .ending(var ending):
      self = .terminal
      ending.outlet.demand += more
      if let value = ending.outlet.queue.popFirst() {
        self = .ending(ending)
        return .value(value)
      }
      if ending.outlet.demand > .none, let last = ending.last.take() {
        ending.outlet.demand -= 1
        self = .ending(ending)
        return .value(last)
      }
      // A last value without demand for it is dropped, after the lock.
      return .completion(ending.completion, Released(ending.outlet, last: ending.last))
    case .terminal:
      return nil
    }
  }

  /// Ends everything; `nil` when already terminal.
  mutating func cancel() -> Released? {
    switch self {
    case .active(let outlet):
      self = .terminal
      return Released(outlet)
    case .ending(let ending):
      self = .terminal
      return Released(ending.outlet, last: ending.last, completion: ending.completion)
    case .terminal:
      return nil
    }
  }
}
