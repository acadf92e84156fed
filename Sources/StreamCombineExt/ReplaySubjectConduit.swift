import SignalOperators
public import StreamCore

extension ReplaySubject {
  /// The core's view of one subscription, whatever the subscriber's type.
  ///
  /// The replaying counterpart of StreamCore's `SubjectConduitBase`: `enqueue` and `finish` run
  /// under the core's lock and only change state; a `true` result means the conduit now needs a
  /// thread to deliver, which ``drainIfClaimed()`` provides after the lock.
  ///
  /// The two per-value entry points are closures made where the subscriber's type is known
  /// (the conduit's `@inlinable` init, reached from the subscriber's `subscribe`), as the
  /// conduits of StreamCore's subjects do: an overridden method of a generic class runs
  /// unspecialised, looking up type metadata at every step.
  // Sendable: subclasses guard their state with the core's lock; the entries are immutable.
  @usableFromInline
  class ConduitBase: @unchecked Sendable {
    @usableFromInline
    let enqueueEntry: (ConduitBase, Output) -> Bool
    @usableFromInline
    let drainEntry: (ConduitBase) -> Void

    @inlinable
    init(
      enqueueEntry: @escaping (ConduitBase, Output) -> Bool,
      drainEntry: @escaping (ConduitBase) -> Void
    ) {
      self.enqueueEntry = enqueueEntry
      self.drainEntry = drainEntry
    }

    /// Takes a live value; under the core's lock. Returns whether a delivery was claimed.
    @inlinable
    final func enqueue(_ value: Output) -> Bool {
      enqueueEntry(self, value)
    }

    /// Takes the completion; under the core's lock. Returns whether a delivery was claimed.
    func finish(_ completion: Subscribers.Completion<Failure>) -> Bool {
      preconditionFailure("ReplaySubject.ConduitBase.finish(_:) must be overridden")
    }

    /// Delivers if a delivery was claimed and no other thread has taken it yet.
    @inlinable
    final func drainIfClaimed() {
      drainEntry(self)
    }
  }

  /// The state of one replay subscription, guarded by the core's lock: a value type, so each
  /// transition is testable without threads.
  ///
  /// How it differs from StreamCore's `SubjectConduit` (the conduit of `PassthroughSubject` and
  /// `CurrentValueSubject`): it shares the core-plus-conduits split and the rule that one
  /// subscriber never receives two calls at once, but it delivers through a `SerialDrain`
  /// instead of a re-entrant owner (a `send` from inside the subscriber is queued and delivered
  /// right after the current delivery, as this subject has always documented), and it keeps up
  /// to the subject's capacity of values without demand (`waiting`), where a current-value
  /// subject keeps only the latest. `ready` holds values whose demand is taken; `waiting` is
  /// non-empty only while demand is zero, so `ready` then `waiting` is the subscriber's order.
  /// Not a `DeliveryQueue`: dropping the oldest *undemanded* value would remove from the middle
  /// of its single queue.
  ///
  /// ```
  /// active --cancel() / completion handed to the drain--> terminal (downstream, values released)
  /// ```
  @usableFromInline
  enum ConduitState<Downstream> {
    case active(Active)
    case terminal

    /// What exists while the subscription is live.
    @usableFromInline
    struct Active {
      @usableFromInline
      var downstream: Downstream
      @usableFromInline
      var demand = Subscribers.Demand.none
      /// Values whose demand is taken, waiting for the drain.
      @usableFromInline
      var ready = RingBuffer<Output>()
      /// Values without demand, at most the subject's capacity (oldest dropped).
      @usableFromInline
      var waiting: RingBuffer<Output>
      /// The subject's completion, delivered once `ready` and `waiting` are empty.
      @usableFromInline
      var completion: Subscribers.Completion<Failure>?
      /// Who delivers; claimed from the start by the subscribing thread, which owns the
      /// subscription until `receive(subscription:)` has returned.
      @usableFromInline
      var drain = SerialDrain()
      /// Whether the drain was claimed under the core's lock on behalf of the thread calling
      /// `send`, which starts it with ``ConduitState/takeHandOff()`` after the lock.
      @usableFromInline
      var handedOff = false

      @inlinable
      init(
        downstream: Downstream,
        waiting: RingBuffer<Output>,
        completion: Subscribers.Completion<Failure>?
      ) {
        self.downstream = downstream
        self.waiting = waiting
        self.completion = completion
      }
    }

    /// What a terminal transition takes out of the state, to be released after the lock.
    @usableFromInline
    struct Released {
      @usableFromInline
      var downstream: Downstream
      @usableFromInline
      var ready: RingBuffer<Output>
      @usableFromInline
      var waiting: RingBuffer<Output>

      @inlinable
      init(_ active: Active) {
        downstream = active.downstream
        ready = active.ready
        waiting = active.waiting
      }
    }

    /// One step of the drain, performed outside the lock.
    @usableFromInline
    enum Step {
      case value(Output)
      case completion(Subscribers.Completion<Failure>, Released)
    }

    /// A new subscription that first replays `replay`, then `completion` if the subject ended.
    /// The drain is claimed for the subscribing thread.
    @inlinable
    init(
      downstream: Downstream,
      replay: RingBuffer<Output>,
      completion: Subscribers.Completion<Failure>?
    ) {
      var active = Active(downstream: downstream, waiting: replay, completion: completion)
      _ = active.drain.claim()
      self = .active(active)
    }

    /// Takes a live value, keeping at most `capacity` without demand; `true`: the drain was
    /// claimed for the sending thread. The value dropped to make room is also dropped by the
    /// subject's own buffer, which keeps it alive until after the lock (see `Core.send`).
    @inlinable
    mutating func enqueue(_ value: Output, capacity: Int) -> Bool {
      updateActive(otherwise: false) { active in
        guard active.demand > .none else {
          _ = active.waiting.append(value, limit: capacity)
          return false
        }
        active.demand -= 1
        active.ready.append(value)
        guard active.drain.claim() else { return false }
        active.handedOff = true
        return true
      }
    }

    /// Runs `body` on the live state, changed in place: the payload is moved out of the enum
    /// and back rather than copied (a copy retains and releases each of its references, and
    /// keeps the buffers from being uniquely referenced while they change). `otherwise` once
    /// terminal.
    @inlinable
    mutating func updateActive<Result>(
      otherwise: Result,
      _ body: (inout Active) -> Result
    ) -> Result {
      switch consume self {
      case .active(var active):
        let result = body(&active)
        self = .active(active)
        return result
      case .terminal:
        self = .terminal
        return otherwise
      }
    }

    /// Takes the subject's completion; `true`: the drain was claimed for the completing thread.
    mutating func finish(_ completion: Subscribers.Completion<Failure>) -> Bool {
      guard case .active(var active) = self else { return false }
      self = .terminal
      defer { self = .active(active) }
      active.completion = completion
      guard active.ready.isEmpty, active.waiting.isEmpty, active.drain.claim() else {
        return false
      }
      active.handedOff = true
      return true
    }

    /// For the thread that a delivery was handed to under the core's lock: the downstream to
    /// drain to, or `nil` when there is no hand-off (or the subscription ended meanwhile, in
    /// which case the drain is released).
    @inlinable
    mutating func takeHandOff() -> Downstream? {
      updateActive(otherwise: nil) { active in
        guard active.handedOff else { return nil }
        active.handedOff = false
        return active.downstream
      }
    }

    /// Adds demand; the downstream to drain to when this call claimed the drain.
    mutating func request(_ more: Subscribers.Demand) -> Downstream? {
      updateActive(otherwise: nil) { active in
        Self.add(more, to: &active)
        let due = !active.ready.isEmpty || (active.waiting.isEmpty && active.completion != nil)
        guard due, active.drain.claim() else { return nil }
        return active.downstream
      }
    }

    /// The drain's next step, for the thread that claimed it: adds `more` (the demand the last
    /// delivery returned), then a ready value, or the completion once nothing is kept (which
    /// ends the state). `nil` after releasing the drain, or once terminal.
    @inlinable
    mutating func nextStep(adding more: Subscribers.Demand) -> Step? {
      // Moved out and back, as in `updateActive(otherwise:_:)`; the completion ends the state.
      switch consume self {
      case .terminal:
        self = .terminal
        return nil
      case .active(var active):
        Self.add(more, to: &active)
        if let value = active.ready.popFirst() {
          self = .active(active)
          return .value(value)
        }
        if active.waiting.isEmpty, let completion = active.completion {
          self = .terminal
          return .completion(completion, Released(active))
        }
        active.drain.release()
        self = .active(active)
        return nil
      }
    }

    /// Ends the subscription; what it held, to release after the lock (`nil` if already ended).
    mutating func cancel() -> Released? {
      guard case .active(let active) = self else { return nil }
      self = .terminal
      return Released(active)
    }

    /// Adds demand and moves the waiting values it covers to `ready`.
    @inlinable
    static func add(_ more: Subscribers.Demand, to active: inout Active) {
      guard more > .none else { return }
      active.demand += more
      while active.demand > .none, let value = active.waiting.popFirst() {
        active.demand -= 1
        active.ready.append(value)
      }
    }
  }

  /// The subscription a replay subject hands to each subscriber; its state is a
  /// ``ConduitState`` guarded by the core's lock.
  // Sendable: all mutable state is guarded by `core.lock`; downstream is called outside it.
  @usableFromInline
  final class Conduit<Downstream: Subscriber>: ConduitBase, @unchecked Sendable, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    let core: Core
    /// Guarded by `core.lock`.
    @usableFromInline
    @exclusivity(unchecked) var state: ConduitState<Downstream>

    @inlinable
    init(
      downstream: Downstream,
      core: Core,
      replay: RingBuffer<Output>,
      completion: Subscribers.Completion<Failure>?
    ) {
      self.core = core
      self.state = ConduitState(downstream: downstream, replay: replay, completion: completion)
      let capacity = core.capacity
      super.init(
        enqueueEntry: { base, value in
          unsafeDowncast(base, to: Conduit.self).state.enqueue(value, capacity: capacity)
        },
        drainEntry: { base in unsafeDowncast(base, to: Conduit.self).specialisedDrainIfClaimed() }
      )
    }

    @usableFromInline
    override func finish(_ completion: Subscribers.Completion<Failure>) -> Bool {
      state.finish(completion)
    }

    @inlinable
    func specialisedDrainIfClaimed() {
      if let target = core.lock.withLock({ state.takeHandOff() }) { drain(target) }
    }

    /// Delivers while something is ready, then the completion once nothing is kept; runs on the
    /// thread that claimed the drain.
    @inlinable
    func drain(_ downstream: Downstream) {
      var more = Subscribers.Demand.none
      SerialDrain.run(core.lock) { () -> ConduitState<Downstream>.Step? in
        let step = state.nextStep(adding: more)
        if case .completion = step { core.remove(self) }
        return step
      } perform: { step in
        switch step {
        case .value(let value):
          more = downstream.receive(value)
          return true
        case .completion(let completion, let released):
          downstream.receive(completion: completion)
          _ = released  // the subscriber and kept values go here, after the completion
          return false
        }
      }
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      if let target = core.lock.withLock({ state.request(demand) }) { drain(target) }
    }

    @usableFromInline
    func cancel() {
      let released = core.lock.withLock { () -> ConduitState<Downstream>.Released? in
        guard let released = state.cancel() else { return nil }
        core.remove(self)
        return released
      }
      _ = released  // the subscriber and kept values go here, after the lock
    }

    @usableFromInline
    var description: String { "ReplaySubject" }

    /// The `downstream` (`nil` once released), its `demand` not yet met, and the `buffer` of
    /// values (replayed or live) waiting for it.
    @usableFromInline
    var customMirror: Mirror {
      let (downstream, demand, buffer) = core.lock.withLock {
        () -> (Downstream?, Subscribers.Demand, [Output]) in
        guard case .active(let active) = state else { return (nil, .none, []) }
        return (active.downstream, active.demand, Array(active.ready) + Array(active.waiting))
      }
      return Mirror(
        self,
        children: ["downstream": downstream as Any, "demand": demand, "buffer": buffer]
      )
    }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
