import StreamCore

extension ReplaySubject {
  /// The core's view of one subscription, whatever the subscriber's type.
  ///
  /// `enqueue` and `finish` run under the core's lock and only change state; a `true` result (or
  /// a set `claimed` flag) means the conduit now needs a thread to deliver, which
  /// ``drainIfClaimed()`` provides after the lock.
  // Sendable: subclasses guard their state with the core's lock.
  class ConduitBase: @unchecked Sendable {
    /// Takes a live value; under the core's lock. Returns whether a delivery was claimed.
    func enqueue(_ value: Output) -> Bool {
      preconditionFailure("ReplaySubject.ConduitBase.enqueue(_:) must be overridden")
    }

    /// Takes the completion; under the core's lock.
    func finish(_ completion: Subscribers.Completion<Failure>) {
      preconditionFailure("ReplaySubject.ConduitBase.finish(_:) must be overridden")
    }

    /// Delivers if a delivery was claimed and no other thread has taken it yet.
    func drainIfClaimed() {
      preconditionFailure("ReplaySubject.ConduitBase.drainIfClaimed() must be overridden")
    }
  }

  /// The subscription a replay subject hands to each subscriber.
  ///
  /// `ready` holds values whose demand is taken, `waiting` values without demand (at most the
  /// subject's capacity, oldest dropped); `waiting` is non-empty only while demand is zero, so
  /// `ready` then `waiting` is the subscriber's order. One thread at a time delivers
  /// (`draining`); other threads only queue and add demand, and the delivering thread loops.
  ///
  /// ```
  /// open --cancel / completion delivered--> terminal (downstream and kept values released)
  /// ```
  // Sendable: all mutable state is guarded by `core.lock`; downstream is called outside it.
  final class Conduit<Downstream: Subscriber>: ConduitBase, @unchecked Sendable, Subscription,
    CustomStringConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    private enum Step {
      case deliver(Output)
      case complete(Subscribers.Completion<Failure>)
      case stop
    }

    private struct Released {
      var downstream: Downstream?
      var ready: Ring
      var waiting: Ring
    }

    let core: Core
    /// `nil` once terminal.
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var ready = Ring()
    var waiting = Ring()
    var pendingCompletion: Subscribers.Completion<Failure>?
    /// Whether a thread delivers (or has claimed the right to); the subscribing thread owns the
    /// conduit until `receive(subscription:)` has returned.
    private var draining = true
    /// A delivery claimed under the core's lock that no thread has started yet.
    private var claimed = false

    init(downstream: Downstream, core: Core) {
      self.downstream = downstream
      self.core = core
    }

    override func enqueue(_ value: Output) -> Bool {
      guard downstream != nil else { return false }
      guard demand > .none else {
        // The value dropped, if any, is the one the core drops too (see `Core.send`).
        _ = waiting.append(value, limit: core.capacity)
        return false
      }
      demand -= 1
      ready.append(value)
      return claim()
    }

    override func finish(_ completion: Subscribers.Completion<Failure>) {
      guard downstream != nil else { return }
      pendingCompletion = completion
      if ready.isEmpty && waiting.isEmpty { _ = claim() }
    }

    override func drainIfClaimed() {
      let target = core.lock.withLock { () -> Downstream? in
        guard claimed else { return nil }
        claimed = false
        guard let downstream else {
          draining = false
          return nil
        }
        return downstream
      }
      if let target { drain(target, adding: .none) }
    }

    /// Claims the delivery if no thread is delivering; under the core's lock.
    private func claim() -> Bool {
      guard !draining else { return false }
      draining = true
      claimed = true
      return true
    }

    /// Adds demand and moves waiting values it covers to `ready`; under the core's lock.
    private func add(_ more: Subscribers.Demand) {
      guard more > .none else { return }
      demand += more
      while demand > .none, let value = waiting.popFirst() {
        demand -= 1
        ready.append(value)
      }
    }

    /// Delivers while something is ready, then the completion once nothing is kept; runs on the
    /// thread that holds `draining`.
    func drain(_ downstream: Downstream, adding initial: Subscribers.Demand) {
      var more = initial
      while true {
        var released: Released?
        let step = core.lock.withLock { () -> Step in
          guard self.downstream != nil else {
            draining = false
            return .stop
          }
          add(more)
          if let value = ready.popFirst() { return .deliver(value) }
          if waiting.isEmpty, let completion = pendingCompletion {
            released = terminate()
            return .complete(completion)
          }
          draining = false
          return .stop
        }
        switch step {
        case .deliver(let value):
          more = downstream.receive(value)
        case .complete(let completion):
          downstream.receive(completion: completion)
          _ = released
          return
        case .stop:
          return
        }
      }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let target = core.lock.withLock { () -> Downstream? in
        guard let downstream else { return nil }
        add(demand)
        let due = !ready.isEmpty || (waiting.isEmpty && pendingCompletion != nil)
        guard due, !draining else { return nil }
        draining = true
        return downstream
      }
      if let target { drain(target, adding: .none) }
    }

    func cancel() {
      let released = core.lock.withLock { () -> Released? in
        guard downstream != nil else { return nil }
        return terminate()
      }
      _ = released  // the subscriber and kept values go here, after the lock
    }

    /// Ends the conduit and leaves the core; under the core's lock. The caller releases the
    /// result after the lock.
    private func terminate() -> Released {
      if let index = core.conduits.firstIndex(where: { $0 === self }) {
        core.conduits.remove(at: index)
      }
      defer {
        downstream = nil
        ready = Ring()
        waiting = Ring()
        pendingCompletion = nil
      }
      return Released(downstream: downstream, ready: ready, waiting: waiting)
    }

    var description: String { "ReplaySubject" }
  }
}
