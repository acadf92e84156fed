import Dispatch
import PropertyWrappers
import SignalOperators
import StreamCore

/// Hands an upstream's values and completion to a dispatch queue, asynchronously and in the
/// order they were sent: the delivery behind ``PropertyEndPoint``.
///
/// The subscription goes downstream at once, on the subscribing thread, and requests go
/// straight upstream; events wait in `pending`, and one block on `queue` delivers those queued
/// by the time it runs (the drain is claimed while a block is scheduled), so the order holds
/// even on a concurrent queue.
///
/// ```
/// awaiting --receive(subscription:)--> live
/// live --the drain delivers the completion / cancel()--> ended (everything released)
/// ```
// Sendable: all mutable state is guarded by `lock`; the downstream is called outside the lock,
// by one drain at a time. Values cross to `queue` as with `receive(on:)`.
final class QueueHop<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  private enum Event {
    case value(Input)
    case completion(Subscribers.Completion<Failure>)
  }

  private struct Live {
    let downstream: Downstream
    var upstream: (any Subscription)?
    var pending = RingBuffer<Event>()
    var drain = SerialDrain()
  }

  private enum State {
    case awaiting(Downstream)
    case live(Live)
    case ended
  }

  private let lock = Lock()
  private let queue: DispatchQueue
  private var state: State

  init(_ downstream: Downstream, queue: DispatchQueue) {
    self.queue = queue
    state = .awaiting(downstream)
  }

  /// As `receive(on:)`'s, the hop it stands for.
  var description: String { "ReceiveOn" }

  /// The `downstream` (`nil` once released), the `upstreamSubscription` (`nil` once the upstream
  /// completed), and the `queue` it delivers on.
  var customMirror: Mirror {
    let (downstream, upstream) = lock.withLock { () -> (Downstream?, (any Subscription)?) in
      switch state {
      case .awaiting(let downstream): (downstream, nil)
      case .live(let live): (live.downstream, live.upstream)
      case .ended: (nil, nil)
      }
    }
    return Mirror(
      self,
      children: [
        "downstream": downstream as Any, "upstreamSubscription": upstream as Any, "queue": queue,
      ]
    )
  }

  var playgroundDescription: Any { description }

  func receive(subscription: any Subscription) {
    let downstream = lock.withLock { () -> Downstream? in
      guard case .awaiting(let downstream) = state else { return nil }
      state = .live(Live(downstream: downstream, upstream: subscription))
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    enqueue(.value(input))
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    enqueue(.completion(completion))
  }

  func request(_ demand: Subscribers.Demand) {
    let upstream = lock.withLock { () -> (any Subscription)? in
      guard case .live(let live) = state else { return nil }
      return live.upstream
    }
    upstream?.request(demand)
  }

  func cancel() {
    let released = lock.withLock { () -> State in
      defer { state = .ended }
      return state
    }
    if case .live(let live) = released {
      live.upstream?.cancel()
    }
  }

  /// Queues `event` and schedules a drain on `queue` unless one is scheduled already.
  private func enqueue(_ event: Event) {
    let schedule = lock.withLock { () -> Bool in
      guard case .live(var live) = state else { return false }
      state = .ended  // keeps `live` uniquely referenced while it changes
      live.pending.append(event)
      if case .completion = event { live.upstream = nil }
      let claimed = live.drain.claim()
      state = .live(live)
      return claimed
    }
    if schedule {
      queue.async { self.drain() }
    }
  }

  /// Runs on `queue`: delivers the queued events in order, then releases the drain.
  private func drain() {
    while true {
      let step = lock.withLock { () -> (Downstream, Event, (any Subscription)?)? in
        guard case .live(var live) = state else { return nil }
        state = .ended
        guard let event = live.pending.popFirst() else {
          live.drain.release()
          state = .live(live)
          return nil
        }
        if case .value = event { state = .live(live) }
        return (live.downstream, event, live.upstream)
      }
      guard let (downstream, event, upstream) = step else { return }
      switch event {
      case .value(let value):
        let more = downstream.receive(value)
        if more > .none { upstream?.request(more) }
      case .completion(let completion):
        downstream.receive(completion: completion)
        return
      }
    }
  }
}
