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
/// - One thread delivers at a time (`delivering`). The subscribing thread owns the subscription
///   until `receive(subscription:)` has returned, so nothing overtakes it. A value offered
///   while another delivery is under way takes its demand at once and waits in `queue`; a
///   request made meanwhile only adds demand, and the delivering thread loops. So `request`
///   from inside `receive(_:)` never recurses.
///
/// ```
/// subscribing --start--> idle <--> delivering --end delivered / cancel()--> terminal
/// ```
// Sendable: every mutable property is guarded by `lock`; downstream and the stream are called
// after it.
final class StreamViewSubscription<T, E: Error, Downstream: Subscriber>: Subscription,
  @unchecked Sendable, CustomStringConvertible
{
  typealias Output = Downstream.Input
  typealias Failure = Downstream.Failure

  private enum Action {
    case deliver(Output)
    case complete(Subscribers.Completion<Failure>)
    case stop
  }

  /// What `terminate()` takes out, to be released after the lock.
  private struct Released {
    var downstream: Downstream?
    var source: StreamSubscriber<T, E>?
    var callback: StreamCallback<T, E>?
    var queue: RingBuffer<Output>
    var latest: Output?
  }

  private let lock = Lock()
  private var downstream: Downstream?
  /// The stream, kept alive while the subscription lasts.
  private var source: StreamSubscriber<T, E>?
  private var callback: StreamCallback<T, E>?
  private var demand = Subscribers.Demand.none
  private var delivering = true
  private var queue = RingBuffer<Output>()
  private var latest: Output?
  private var ending: (last: Output?, completion: Subscribers.Completion<Failure>)?
  private let keepsLatest: Bool
  private let step: (StreamState<T, E>) -> StreamViewStep<Output, Failure>

  private init(
    downstream: Downstream,
    source: StreamSubscriber<T, E>,
    step: @escaping (StreamState<T, E>) -> StreamViewStep<Output, Failure>
  ) {
    self.downstream = downstream
    self.source = source
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
    let callback = source.addCallback(queue: nil) { [weak subscription] state in
      subscription?.offer(state)
    }
    let stale = subscription.lock.withLock { () -> StreamCallback<T, E>? in
      guard subscription.source != nil else { return callback }
      subscription.callback = callback
      return nil
    }
    if let stale { source.removeCallback(stale) }
    downstream.receive(subscription: subscription)
    subscription.drain(downstream, adding: .none)
  }

  private func offer(_ state: StreamState<T, E>) {
    let target: Downstream?
    // A superseded latest value is released after the lock.
    var superseded: Output?
    switch step(state) {
    case .skip:
      return
    case .send(let value):
      target = lock.withLock { () -> Downstream? in
        guard let downstream, ending == nil else { return nil }
        guard demand > .none else {
          if keepsLatest {
            superseded = latest.take()
            latest = value
          }
          return nil
        }
        demand -= 1
        if delivering {
          queue.append(value)
          return nil
        }
        delivering = true
        superseded = latest.take()
        queue.append(value)
        return downstream
      }
    case .end(let last, let completion):
      target = lock.withLock { () -> Downstream? in
        guard let downstream, ending == nil else { return nil }
        ending = (last, completion)
        if delivering { return nil }
        delivering = true
        return downstream
      }
    }
    _ = superseded
    if let target { drain(target, adding: .none) }
  }

  /// Delivers while this thread owns the subscription: queued values, then the ending, then the
  /// latest value if there is demand; lets go when nothing is left.
  private func drain(_ downstream: Downstream, adding initial: Subscribers.Demand) {
    var more = initial
    while true {
      var released: Released?
      let action = lock.withLock { () -> Action in
        guard self.downstream != nil else {
          delivering = false
          return .stop
        }
        demand += more
        if let value = queue.popFirst() {
          return .deliver(value)
        }
        if let ending {
          if let last = ending.last, demand > .none {
            demand -= 1
            self.ending = (nil, ending.completion)
            return .deliver(last)
          }
          released = terminate()
          return .complete(ending.completion)
        }
        if demand > .none, let value = latest {
          latest = nil
          demand -= 1
          return .deliver(value)
        }
        delivering = false
        return .stop
      }
      switch action {
      case .deliver(let value):
        more = downstream.receive(value)
      case .complete(let completion):
        downstream.receive(completion: completion)
        release(released)
        return
      case .stop:
        return
      }
    }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let target = lock.withLock { () -> Downstream? in
      guard let downstream else { return nil }
      if delivering {
        self.demand += demand
        return nil
      }
      guard latest != nil else {
        self.demand += demand
        return nil
      }
      delivering = true
      return downstream
    }
    if let target { drain(target, adding: demand) }
  }

  func cancel() {
    let released = lock.withLock { () -> Released? in
      guard downstream != nil else { return nil }
      return terminate()
    }
    release(released)
  }

  /// Ends the subscription; must run under the lock.
  private func terminate() -> Released {
    defer {
      downstream = nil
      source = nil
      callback = nil
      queue = RingBuffer()
      latest = nil
    }
    return Released(
      downstream: downstream,
      source: source,
      callback: callback,
      queue: queue,
      latest: latest
    )
  }

  /// Unregisters from the stream and lets go of it, outside the lock.
  private func release(_ released: Released?) {
    guard let released, let source = released.source else { return }
    if let callback = released.callback { source.removeCallback(callback) }
  }

  var description: String {
    "StreamSubscriber"
  }
}
