public import StreamCore
public import Synchronization

/// The subscription of `Zip`, `Zip3` and `Zip4`: one state machine for every arity.
///
/// ```
/// active --value completes a tuple, demand > 0--> deliver (at once, or by the draining thread)
/// active --failure--> ending (tuples the queues complete first, while there is demand; then
///   the failure, which doesn't wait for demand; what is left is released after it)
/// active --an upstream finished and its queue is empty--> ending (finished next)
/// active / ending --completion delivered / cancel()--> terminal (downstream == nil)
/// ```
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
final class LatestFamilyZipCore<Storage: LatestFamilyZipQueues, Downstream: Subscriber>:
  // Sendable: state guarded by `lock`, calls made outside it (the reason above the class).
  @unchecked Sendable, LatestFamilyCore, Subscription, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible
where Downstream.Input == Storage.Output {
  @usableFromInline typealias Failure = Downstream.Failure

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
      cancels: LatestFamilyCalls,
      released: Storage
    )
    case stop
  }

  @usableFromInline let lock = Lock()

  /// Number of pending drain requests; the thread that raises it from 0 delivers.
  @usableFromInline let drainers = Atomic<Int>(0)

  /// `nil` once terminal.
  @exclusivity(unchecked) @usableFromInline var downstream: Downstream?
  @exclusivity(unchecked) @usableFromInline var storage = Storage()
  @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none
  /// Everything downstream has asked for so far; what an upstream subscribing late requests.
  @exclusivity(unchecked) @usableFromInline var requested = Subscribers.Demand.none
  /// Bit `i`: upstream `i` has finished.
  @exclusivity(unchecked) @usableFromInline var finished: UInt8 = 0
  @exclusivity(unchecked) @usableFromInline var subscriptions: ContiguousArray<(any Subscription)?>
  @exclusivity(unchecked) @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?

  @inlinable
  init(downstream: Downstream) {
    self.downstream = downstream
    subscriptions = ContiguousArray(repeating: nil, count: Storage.arity)
  }

  @usableFromInline
  var description: String { "Zip" }

  @usableFromInline
  var playgroundDescription: Any { description }

  /// Whether the subscription is neither completed nor cancelled.
  @inlinable
  var isActive: Bool { lock.withLock { downstream != nil } }

  // MARK: Upstream events

  @inlinable
  func receive(subscription: any Subscription, at index: Int) {
    let bit: UInt8 = 1 << index
    let (accepted, request) = lock.withLock { () -> (Bool, Subscribers.Demand) in
      guard downstream != nil, pendingCompletion == nil, subscriptions[index] == nil,
        finished & bit == 0
      else {
        return (false, .none)
      }
      subscriptions[index] = subscription
      return (true, requested)
    }
    if !accepted {
      subscription.cancel()
    } else if request > .none {
      subscription.request(request)
    }
  }

  @inlinable
  func receive<Slot: LatestFamilySlot>(_ value: Slot.Value, slot: Slot.Type) -> Subscribers.Demand
  where Slot.Storage == Storage {
    let action = lock.withLock { () -> ValueAction in
      guard downstream != nil, pendingCompletion == nil, finished & (1 << Slot.index) == 0 else {
        return .ignore
      }
      _ = Slot.put(value, into: &storage)  // zip queues: nothing is replaced
      guard demand > .none, storage.isReady else { return .ignore }
      guard
        drainers.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent)
          .exchanged
      else { return .signal }
      demand -= 1
      let output = storage.takeOutput()
      return .deliver(output, downstream!, unlimited: demand == .unlimited, ending: checkEnd())
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
        var calls = LatestFamilyCalls()
        lock.withLock {
          guard self.downstream != nil else { return }
          demand += more
          requested += more
          collectSubscriptions(into: &calls, except: Slot.index)
          returned = more
        }
        calls.request(more)
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
    let bit: UInt8 = 1 << index
    var calls = LatestFamilyCalls()
    let (ending, released) = lock.withLock { () -> (Bool, (any Subscription)?) in
      guard downstream != nil, pendingCompletion == nil, finished & bit == 0 else {
        return (false, nil)
      }
      finished |= bit
      let released = subscriptions[index].take()
      switch completion {
      case .failure:
        // Values already queued were sent before the failure: the tuples they complete go
        // first, while there is demand (see `drainAvailable`).
        pendingCompletion = completion
      case .finished:
        guard storage.isEmpty(at: index) else { return (false, released) }
        pendingCompletion = .finished
      }
      collectSubscriptions(into: &calls, except: nil, taking: true)
      return (true, released)
    }
    _ = released
    calls.cancel()
    if ending { signal() }
  }

  // MARK: Downstream calls

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    var calls = LatestFamilyCalls()
    let ready = lock.withLock { () -> Bool in
      guard downstream != nil else { return false }
      self.demand += demand
      requested += demand
      collectSubscriptions(into: &calls, except: nil)
      return storage.isReady
    }
    calls.request(demand)
    if ready { signal() }
  }

  @inlinable
  func cancel() {
    var calls = LatestFamilyCalls()
    let released = lock.withLock { () -> (Downstream?, Storage, Subscribers.Completion<Failure>?) in
      collectSubscriptions(into: &calls, except: nil, taking: true)
      return (
        downstream.take(), latestFamilyExchange(&storage, with: Storage()), pendingCompletion.take()
      )
    }
    calls.cancel()
    _ = released
  }

  // MARK: Delivery

  /// Adds the current upstream subscriptions, except `index`, to `calls`; with `taking`, also
  /// removes them. Call it under `lock`.
  @inlinable
  func collectSubscriptions(
    into calls: inout LatestFamilyCalls,
    except index: Int?,
    taking: Bool = false
  ) {
    for side in subscriptions.indices where side != index {
      guard let subscription = subscriptions[side] else { continue }
      calls.append(subscription)
      if taking { subscriptions[side] = nil }
    }
  }

  /// After a tuple was taken: if an upstream has finished and its queue is now empty, ends the
  /// subscription with `.finished` (the other upstreams are cancelled when it is delivered) and
  /// returns `true`. Call it under `lock`.
  @inlinable
  func checkEnd() -> Bool {
    guard finished != 0, pendingCompletion == nil else { return false }  // not over a failure
    for side in 0..<Storage.arity where finished & (1 << side) != 0 && storage.isEmpty(at: side) {
      pendingCompletion = .finished
      return true
    }
    return false
  }

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
        guard let downstream else { return .stop }
        // Also while a failure is pending; a pending `.finished` leaves no tuple ready.
        if demand > .none, storage.isReady {
          demand -= 1
          let output = storage.takeOutput()
          _ = checkEnd()
          return .value(output, downstream)
        }
        guard let completion = pendingCompletion else { return .stop }
        pendingCompletion = nil
        self.downstream = nil
        var cancels = LatestFamilyCalls()
        collectSubscriptions(into: &cancels, except: nil, taking: true)
        return .completion(
          completion,
          downstream,
          cancels: cancels,
          released: latestFamilyExchange(&storage, with: Storage())
        )
      }
      switch step {
      case .value(let output, let downstream):
        let more = downstream.receive(output)
        guard more > .none else { continue }
        var calls = LatestFamilyCalls()
        lock.withLock {
          guard self.downstream != nil, demand != .unlimited else { return }
          demand += more
          requested += more
          collectSubscriptions(into: &calls, except: nil)
        }
        calls.request(more)
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
