public import StreamCore

/// The subscription of `Zip`, `Zip3` and `Zip4`: one state machine for every arity, whose
/// states and transitions are ``ZipState``'s; this class takes the lock, performs what the
/// transitions decide after it, and delivers.
///
/// Demand: downstream demand, from `request(_:)` or returned by `receive(_:)`, is forwarded to
/// every upstream, as Combine does; the upstream whose value completed the tuple gets it as the
/// return value of its `receive(_:)` (also once the demand is unlimited). Values wait in their upstream's queue until every queue
/// has one and there is demand.
///
/// Delivery: through ``AtomicDrain`` (see there why not `SerialDrain`): a value that completes a
/// tuple claims the drain in the critical section that stores it and goes down; one that
/// completes a tuple while another thread delivers is left in its queue for that thread. The
/// uncontended path takes the lock once per value.
// Sendable: mutable state is guarded by `lock`; `drain` is atomic; downstream and upstream
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

  /// Who delivers.
  @usableFromInline let drain = AtomicDrain()

  /// `nil` once the state has ended.
  @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
  @exclusivity(unchecked) @usableFromInline var state = State()

  /// Holds the drain until ``start()``: what the upstreams send while they are subscribed
  /// waits until the subscriber has its subscription.
  @inlinable
  init(downstream: Downstream) {
    self.downstream = downstream
    _ = drain.claim()  // the first claim: it succeeds
  }

  /// Called once every upstream has been subscribed (as Combine, the subscriber gets its
  /// subscription after them): hands the subscriber its subscription, then lets go of the
  /// drain taken in `init`, delivering what arrived meanwhile (a failure, say).
  @inlinable
  func start() {
    if let downstream = lock.withLock({ downstream }) {
      downstream.receive(subscription: self)
    }
    drain.release { drainAvailable() }
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
      guard drain.claim() else { return .signal }
      let (output, ending) = state.takeTuple()
      state.startProcessing(Slot.index)
      return .deliver(output, downstream, unlimited: state.demand == .unlimited, ending: ending)
    }
    switch action {
    case .ignore:
      return .none
    case .signal:
      drain.signal { drainAvailable() }
      return .none
    case .deliver(let output, let downstream, let unlimited, let ending):
      let more = downstream.receive(output)
      let requestedMeanwhile = lock.withLock { state.endProcessing() }
      if !unlimited, more > .none {
        lock.withLock { state.add(more, except: Slot.index) }?.request(more)
        drainAvailable()
      } else if ending {
        drainAvailable()
      }
      drain.release { drainAvailable() }
      // As Combine: the upstream whose value completed the tuple gets the downstream's demand
      // back, also once it is unlimited or the subscription ended; when the downstream returned
      // none, what it requested from inside `receive(_:)` (which went to the other upstreams).
      return more > .none ? more : requestedMeanwhile
    }
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>, at index: Int) {
    let action = lock.withLock { state.complete(completion, at: index) }
    action.cancels.cancel()
    if action.ending { drain.signal { drainAvailable() } }
  }

  // MARK: Downstream calls

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    guard let requested = lock.withLock({ state.request(demand) }) else { return }
    requested.calls.request(demand)
    if requested.ready { drain.signal { drainAvailable() } }
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

  /// Delivers tuples while there is demand, then a pending completion. Only the thread holding
  /// the drain claim runs it.
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
        _ = released
        downstream.receive(completion: completion)
        cancels.cancel()  // after the completion, as Combine
        return
      case .stop:
        return
      }
    }
  }
}

extension ZipInner: CustomReflectable {
  /// The subscriber (`nil` once the subscription ended and let go of it) and the demand not yet
  /// met; Combine's zip mirrors its internals, which StreamKit doesn't reproduce (INTENDED.md,
  /// I14).
  @usableFromInline
  var customMirror: Mirror {
    let (downstream, demand) = lock.withLock { (self.downstream, state.demand) }
    return Mirror(self, children: ["downstream": downstream as Any, "demand": demand])
  }
}
