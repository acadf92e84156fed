public import StreamCore

/// The subscription of `Zip`, `Zip3` and `Zip4`: one state machine for every arity, whose
/// states and transitions are ``ZipState``'s; this class takes the lock, performs what the
/// transitions decide after it, and delivers.
///
/// Demand: downstream demand, from `request(_:)` or returned by `receive(_:)`, is forwarded to
/// every upstream, as Combine does; the upstream whose value completed the tuple gets it as the
/// return value of its `receive(_:)`. Values wait in their upstream's queue until every queue
/// has one and there is demand.
///
/// Delivery: the engine's serial drain, claimed under the lock (``ZipState/drain``). A value
/// that completes a tuple while no thread delivers claims it in the critical section that
/// stores the value, goes down, and the thread then runs `SerialDrain.run`, which lets go in the
/// critical section that finds nothing left; a tuple completed while another thread delivers is
/// left in its queues for that thread.
// Sendable: mutable state is guarded by `lock`; downstream and upstream calls happen outside
// the lock, downstream calls only by the thread holding the drain claim.
@usableFromInline
final class ZipInner<Storage: ZipQueues, Downstream: Subscriber>:
  // Sendable: state guarded by `lock`, calls made outside it (the reason above the class).
  @unchecked Sendable, CombiningCore, Subscription, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible
where Downstream.Input == Storage.Output {
  @usableFromInline typealias Failure = Downstream.Failure
  @usableFromInline typealias State = ZipState<Storage, Failure>

  @usableFromInline
  enum ValueAction {
    case ignore
    case deliver(Storage.Output, Downstream, unlimited: Bool)
  }

  @usableFromInline
  enum DrainStep {
    case value(Storage.Output, Downstream)
    case completion(
      Subscribers.Completion<Failure>,
      Downstream,
      cancels: CombiningCalls,
      released: Storage
    )
  }

  @usableFromInline let lock = Lock()

  /// `nil` once the state has ended.
  @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
  @exclusivity(unchecked) @usableFromInline var state = State()

  @inlinable
  init(downstream: Downstream) {
    self.downstream = downstream
  }

  @usableFromInline
  var description: String { "Zip" }

  @usableFromInline
  var playgroundDescription: Any { description }

  /// Whether the subscription is neither completed nor cancelled.
  @inlinable
  var isActive: Bool { lock.withLock { !state.isEnded } }

  // MARK: Upstream events

  @inlinable
  func receive(subscription: any Subscription, at index: Int) {
    let request = lock.withLock { state.subscribed(subscription, at: index) }
    if let request {
      if request > .none { subscription.request(request) }
    } else {
      subscription.cancel()
    }
  }

  @inlinable
  func receive<Slot: CombiningSlot>(_ value: Slot.Value, slot: Slot.Type) -> Subscribers.Demand
  where Slot.Storage == Storage {
    let action = lock.withLock { () -> ValueAction in
      // `downstream` is `nil` only once the state has ended, when no value is accepted.
      guard let output = state.receive(value, slot: slot) else { return .ignore }
      guard let downstream else { preconditionFailure("Zip: a tuple after the end") }
      return .deliver(output, downstream, unlimited: state.demand == .unlimited)
    }
    guard case .deliver(let output, let downstream, let unlimited) = action else { return .none }
    let more = downstream.receive(output)
    var returned = Subscribers.Demand.none
    if !unlimited, more > .none {
      let calls = lock.withLock { state.add(more, except: Slot.index) }
      if let calls {
        returned = more
        calls.request(more)
      }
    }
    drain()
    return returned
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    let action = lock.withLock { state.complete(completion, at: index) }
    action.cancels.cancel()
    if action.claimed { drain() }
  }

  // MARK: Downstream calls

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    guard let requested = lock.withLock({ state.request(demand) }) else { return }
    requested.calls.request(demand)
    if requested.claimed { drain() }
  }

  @inlinable
  func cancel() {
    let released = lock.withLock { Cancelled(state: state.cancel(), downstream: downstream.take()) }
    released.state.cancels.cancel()
  }  // the unpaired values, a pending completion and the subscriber are released here

  /// What `cancel()` takes out of the subscription, released after the lock.
  @usableFromInline
  struct Cancelled {
    /// What the state let go of.
    @usableFromInline let state: State.Released
    /// The subscriber, `nil` once ended.
    @usableFromInline let downstream: Downstream?

    @inlinable
    init(state: State.Released, downstream: Downstream?) {
      self.state = state
      self.downstream = downstream
    }
  }

  // MARK: Delivery

  /// The serial drain, run by the thread that claimed it: tuples while there is demand, then a
  /// pending completion.
  @inlinable
  func drain() {
    SerialDrain.run(lock) { () -> DrainStep? in
      // `downstream` is `nil` only once the state has ended, when there is no next step.
      switch state.nextClaimedStep() {
      case nil, .stop?:
        return nil
      case .value(let output)?:
        guard let downstream else { preconditionFailure("Zip: a tuple after the end") }
        return .value(output, downstream)
      case .completion(let completion, let cancels, let released)?:
        guard let downstream = downstream.take() else {
          preconditionFailure("Zip: a completion after the end")
        }
        return .completion(completion, downstream, cancels: cancels, released: released)
      }
    } perform: { step in
      switch consume step {
      case .value(let output, let downstream):
        let more = downstream.receive(output)
        guard more > .none else { return true }
        let calls = lock.withLock { () -> CombiningCalls? in
          state.demand == .unlimited ? nil : state.add(more, except: nil)
        }
        calls?.request(more)
        return true
      case .completion(let completion, let downstream, let cancels, let released):
        cancels.cancel()
        _ = consume released
        downstream.receive(completion: completion)
        return false
      }
    }
  }
}
