public import StreamCore
public import Synchronization

/// The subscription of `Zip`, `Zip3` and `Zip4`: one state machine for every arity, whose
/// states and transitions are ``ZipState``'s; this class takes the lock, performs what the
/// transitions decide after it, and delivers.
///
/// Demand: downstream demand, from `request(_:)` or returned by `receive(_:)`, is forwarded to
/// every upstream, as Combine does; the upstream whose value completed the tuple gets it as the
/// return value of its `receive(_:)`. Values wait in their upstream's queue until every queue
/// has one and there is demand.
///
/// Delivery: the thread that moves `drainers` from 0 to 1 delivers; a value that completes a
/// tuple while another thread delivers is left in its queue for that thread. The uncontended
/// path takes the lock once per value and gives the drain claim back with one atomic
/// subtraction.
// Sendable: mutable state is guarded by `lock`; `drainers` is atomic; downstream and upstream
// calls happen outside the lock, downstream calls only by the thread holding the drain claim.
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
    case deliver(Storage.Output, Downstream, unlimited: Bool, ending: Bool)
    case signal
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
    case stop
  }

  @usableFromInline let lock = Lock()

  /// Number of pending drain requests; the thread that raises it from 0 delivers.
  ///
  /// Kept rather than a `SerialDrain`: the uncontended path claims delivery inside the one
  /// critical section it already takes and gives the claim back with one atomic subtraction,
  /// where a `SerialDrain` would take the lock a second time per value to let go.
  @usableFromInline let drainers = Atomic<Int>(0)

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
      guard state.put(value, slot: slot), state.canDeliver, let downstream else { return .ignore }
      guard
        drainers.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent)
          .exchanged
      else { return .signal }
      let (output, ending) = state.takeTuple()
      return .deliver(output, downstream, unlimited: state.demand == .unlimited, ending: ending)
    }
    switch action {
    case .ignore:
      return .none
    case .signal:
      signal()
      return .none
    case .deliver(let output, let downstream, let unlimited, let ending):
      let more = downstream.receive(output)
      var returned = Subscribers.Demand.none
      if !unlimited, more > .none {
        let calls = lock.withLock { state.add(more, except: Slot.index) }
        if let calls {
          returned = more
          calls.request(more)
        }
        drainAvailable()
      } else if ending {
        drainAvailable()
      }
      release()
      return returned
    }
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    let action = lock.withLock { state.complete(completion, at: index) }
    action.cancels.cancel()
    if action.ending { signal() }
  }

  // MARK: Downstream calls

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let (calls, ready) = lock.withLock { () -> (CombiningCalls?, Bool) in
      (state.add(demand, except: nil), state.storage.isReady)
    }
    guard let calls else { return }
    calls.request(demand)
    if ready { signal() }
  }

  @inlinable
  func cancel() {
    let (released, downstream) = lock.withLock { (state.cancel(), self.downstream.take()) }
    released.cancels.cancel()
    _ = downstream
  }

  // MARK: Delivery

  /// Asks for a drain; the thread that finds no drain under way runs it.
  @inlinable
  func signal() {
    guard drainers.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue == 0 else { return }
    var missed = 1
    repeat {
      drainAvailable()
      missed = drainers.wrappingSubtract(missed, ordering: .sequentiallyConsistent).newValue
    } while missed != 0
  }

  /// Gives back the drain claim taken in `receive(_:slot:)`, draining what became deliverable.
  @inlinable
  func release() {
    var missed = drainers.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
    while missed != 0 {
      drainAvailable()
      missed = drainers.wrappingSubtract(missed, ordering: .sequentiallyConsistent).newValue
    }
  }

  /// Delivers tuples while there is demand, then a pending completion. Only the drain claim
  /// holder runs it.
  @inlinable
  func drainAvailable() {
    while true {
      let step = lock.withLock { () -> DrainStep in
        // `downstream` is `nil` only once the state has ended, when there is no next step.
        switch state.nextStep() {
        case .value(let output):
          guard let downstream else { preconditionFailure("Zip: a tuple after the end") }
          return .value(output, downstream)
        case .completion(let completion, let cancels, let released):
          guard let downstream = downstream.take() else {
            preconditionFailure("Zip: a completion after the end")
          }
          return .completion(completion, downstream, cancels: cancels, released: released)
        case .stop:
          return .stop
        }
      }
      switch step {
      case .value(let output, let downstream):
        let more = downstream.receive(output)
        guard more > .none else { continue }
        let calls = lock.withLock { () -> CombiningCalls? in
          state.demand == .unlimited ? nil : state.add(more, except: nil)
        }
        calls?.request(more)
      case .completion(let completion, let downstream, let cancels, let released):
        cancels.cancel()
        _ = released
        downstream.receive(completion: completion)
        return
      case .stop:
        return
      }
    }
  }
}
