import SignalOperators
public import StreamCore
public import Synchronization

extension ReplaySubject {
  /// The core's view of one subscription, whatever the subscriber's type.
  ///
  /// The per-value entry point is a closure made where the subscriber's type is known (the
  /// conduit's `@inlinable` init, reached from the subscriber's `subscribe`), as the conduits of
  /// StreamCore's subjects do: an overridden method of a generic class runs unspecialised,
  /// looking up type metadata at every step.
  // Sendable: subclasses guard their state with a lock; the entry is immutable.
  @usableFromInline
  class ConduitBase: @unchecked Sendable {
    @usableFromInline
    let offerEntry: (ConduitBase, Output, ThreadID) -> Void

    @inlinable
    init(offerEntry: @escaping (ConduitBase, Output, ThreadID) -> Void) {
      self.offerEntry = offerEntry
    }

    /// Delivers a live value sent on thread `me`, or keeps it until there is demand.
    @inlinable
    final func offer(_ value: Output, from me: ThreadID) {
      offerEntry(self, value, me)
    }

    /// Takes the subject's completion, sent on thread `me`, and delivers it once no kept value
    /// is ahead of it.
    func finish(_ completion: Subscribers.Completion<Failure>, from me: ThreadID) {
      preconditionFailure("ReplaySubject.ConduitBase.finish(_:from:) must be overridden")
    }
  }

  /// The state of one replay subscription, guarded by its conduit's lock: a value type, so each
  /// transition is testable without threads.
  ///
  /// It differs from StreamCore's subject conduit in keeping up to the subject's capacity of
  /// values that arrive without demand (`kept`, oldest dropped), where a `PassthroughSubject`
  /// drops them and a `CurrentValueSubject` keeps only the latest. A value is delivered at once
  /// when the subscriber has demand and nothing is kept ahead of it; the kept values, then the
  /// completion, are delivered in order as demand allows.
  ///
  /// ```
  /// active --cancel() / the completion delivered--> terminal (subscriber and values released)
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
      /// Values waiting for demand (replayed or live), at most the subject's capacity of live
      /// ones: the subscriber receives them before any later value.
      @usableFromInline
      var kept: RingBuffer<Output>
      /// The subject's completion, delivered once `kept` is empty.
      @usableFromInline
      var completion: Subscribers.Completion<Failure>?

      @inlinable
      init(
        downstream: Downstream,
        kept: RingBuffer<Output>,
        completion: Subscribers.Completion<Failure>?
      ) {
        self.downstream = downstream
        self.kept = kept
        self.completion = completion
      }
    }

    /// What a terminal transition takes out of the state, to be released after the lock.
    @usableFromInline
    struct Released {
      @usableFromInline
      var downstream: Downstream
      @usableFromInline
      var kept: RingBuffer<Output>

      @inlinable
      init(_ active: Active) {
        downstream = active.downstream
        kept = active.kept
      }
    }

    /// One delivery of a drain, performed outside the lock.
    @usableFromInline
    enum Step {
      case value(Output, Downstream)
      case completion(Subscribers.Completion<Failure>, Released)
    }

    /// A new subscription that first replays `replay`, then `completion` if the subject ended.
    @inlinable
    init(
      downstream: Downstream,
      replay: RingBuffer<Output>,
      completion: Subscribers.Completion<Failure>?
    ) {
      self = .active(Active(downstream: downstream, kept: replay, completion: completion))
    }

    /// Takes a live value: the subscriber to deliver it to now, and whether its demand is
    /// limited (taken by one), when it has demand and nothing is kept ahead of the value;
    /// otherwise the value is kept, at most `capacity` of them, and `dropped` receives the one
    /// that made room, to be released after the lock.
    @inlinable
    mutating func offer(
      _ value: Output,
      capacity: Int,
      dropped: inout Output?
    ) -> (Downstream, limited: Bool)? {
      updateActive(otherwise: nil) { active in
        guard active.demand > .none, active.kept.isEmpty else {
          dropped = active.kept.append(value, limit: capacity)
          return nil
        }
        guard active.demand != .unlimited else { return (active.downstream, false) }
        active.demand -= 1
        return (active.downstream, true)
      }
    }

    /// Runs `body` on the live state, changed in place: the payload is moved out of the enum
    /// and back rather than copied (a copy retains and releases each of its references, and
    /// keeps the buffer from being uniquely referenced while it changes). `otherwise` once
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

    /// Records the subject's completion; whether the subscription was still live.
    mutating func finish(_ completion: Subscribers.Completion<Failure>) -> Bool {
      updateActive(otherwise: false) { active in
        active.completion = completion
        return true
      }
    }

    /// Adds demand (ignored once terminal); whether something can be delivered now.
    mutating func request(_ more: Subscribers.Demand) -> Bool {
      updateActive(otherwise: false) { active in
        active.demand += more
        return !active.kept.isEmpty || active.completion != nil
      }
    }

    /// The next delivery of a drain: adds `more` (the demand the last delivery returned), then
    /// takes the first kept value if there is demand for it (`values`), or the completion once
    /// nothing is kept, which ends the state. `nil` when nothing can be delivered now.
    @inlinable
    mutating func nextStep(adding more: Subscribers.Demand, values: Bool = true) -> Step? {
      // Moved out and back, as in `updateActive(otherwise:_:)`; the completion ends the state.
      switch consume self {
      case .terminal:
        self = .terminal
        return nil
      case .active(var active):
        active.demand += more
        if values, active.demand > .none, let value = active.kept.popFirst() {
          if active.demand != .unlimited { active.demand -= 1 }
          let downstream = active.downstream
          self = .active(active)
          return .value(value, downstream)
        }
        if active.kept.isEmpty, let completion = active.completion {
          self = .terminal
          return .completion(completion, Released(active))
        }
        self = .active(active)
        return nil
      }
    }

    /// Adds demand the subscriber returned from a delivery made inside another one, which
    /// drains what it covers when the subscriber returns.
    @usableFromInline
    mutating func add(_ more: Subscribers.Demand) {
      guard more > .none else { return }
      updateActive(otherwise: ()) { active in active.demand += more }
    }

    /// Ends the subscription; what it held, to release after the lock (`nil` if already ended).
    mutating func cancel() -> Released? {
      guard case .active(let active) = self else { return nil }
      self = .terminal
      return Released(active)
    }
  }

  /// The subscription a replay subject hands to each subscriber; its state is a
  /// ``ConduitState`` guarded by `lock`, and its subscriber is called only holding `gate`, the
  /// ``DeliveryGate`` StreamCore's subjects use, with the same rules:
  ///
  /// - A live value is taken from the subscriber's demand when it is sent, under `lock`, if
  ///   nothing is kept ahead of it; otherwise it is kept (at most the subject's capacity).
  /// - A value taken is delivered on the sending thread through the gate: a `send` from another
  ///   thread waits for a delivery under way, then delivers on its own thread; one from inside
  ///   the subscriber is delivered at once, re-entrantly.
  /// - The outermost pass of a thread (not one nested inside a delivery) then drains: kept
  ///   values as demand allows, then the completion. Passes nested in a delivery leave that to
  ///   it, so a request from inside `receive(_:)` never calls the subscriber from within the
  ///   call.
  /// - The subscribing thread holds the gate across `receive(subscription:)` and the replay, so
  ///   the replayed values come first and nothing reaches the subscriber before
  ///   `receive(subscription:)` returns.
  ///
  /// A value kept while demand is zero is delivered by whoever adds demand (a request drains
  /// from its outermost pass; one from inside a delivery leaves it to that delivery's outermost
  /// pass), so nothing stays kept while the subscriber has demand for it.
  // Sendable: `state` is guarded by `lock`; the subscriber is called only holding `gate`.
  @usableFromInline
  final class Conduit<Downstream: Subscriber>: ConduitBase, @unchecked Sendable, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline
    let core: Core
    @usableFromInline
    let lock = Lock()
    @usableFromInline
    let gate = DeliveryGate()
    /// Set, under `lock`, when the completion is taken for delivery; read by a value's delivery
    /// once it holds the gate. A value taken from the demand before the completion may reach
    /// the gate after it: it is then dropped, so nothing follows the completion. The gate's
    /// lock orders the store before that read.
    @usableFromInline
    let finished = Atomic<Bool>(false)
    /// Guarded by `lock`.
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
      super.init(offerEntry: { base, value, me in
        unsafeDowncast(base, to: Conduit.self).specialisedOffer(value, from: me)
      })
    }

    /// Hands the subscription to `downstream`, then replays what its demand allows; on the
    /// subscribing thread `me`, holding the gate throughout.
    @inlinable
    func start(_ downstream: Downstream, as me: ThreadID) {
      gate.enter(as: me) { _ in
        downstream.receive(subscription: self)
        drain()
      }
    }

    @inlinable
    func specialisedOffer(_ value: Output, from me: ThreadID) {
      let capacity = core.capacity
      var dropped: Output?
      let target = lock.withLock { state.offer(value, capacity: capacity, dropped: &dropped) }
      _ = dropped  // released here, after the lock
      guard let (downstream, limited) = consume target else { return }
      gate.enter(as: me) { outermost in
        guard !finished.load(ordering: .relaxed) else { return }
        let more = downstream.receive(value)
        // Unlimited demand keeps nothing back: no value can be waiting behind this one.
        guard limited else { return }
        if outermost {
          drain(adding: more)
        } else {
          lock.withLock { state.add(more) }
        }
      }
    }

    /// Delivers kept values while there is demand, then the completion once nothing is kept;
    /// runs in the outermost pass of the gate, after `more` (the demand the last delivery
    /// returned) is added.
    @inlinable
    func drain(adding more: Subscribers.Demand = .none) {
      var more = more
      while let step = lock.withLock({ nextStep(adding: more) }) {
        switch step {
        case .value(let value, let downstream):
          more = downstream.receive(value)
        case .completion(let completion, let released):
          released.downstream.receive(completion: completion)
          return  // the subscriber and kept values are released here, after the completion
        }
      }
    }

    /// The drain's next step, under `lock`.
    @inlinable
    func nextStep(
      adding more: Subscribers.Demand,
      values: Bool = true
    ) -> ConduitState<Downstream>.Step? {
      let step = state.nextStep(adding: more, values: values)
      if case .completion = step { finished.store(true, ordering: .relaxed) }
      return step
    }

    @usableFromInline
    override func finish(_ completion: Subscribers.Completion<Failure>, from me: ThreadID) {
      guard lock.withLock({ state.finish(completion) }) else { return }
      gate.enter(as: me) { outermost in
        guard !outermost else { return drain() }
        // From inside a delivery: at once if no kept value is ahead of it, as StreamCore's
        // subjects deliver a nested completion; otherwise the outer pass delivers it in turn.
        guard
          case .completion(let completion, let released)? = lock.withLock({
            nextStep(adding: .none, values: false)
          })
        else { return }
        released.downstream.receive(completion: completion)
      }
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      guard lock.withLock({ state.request(demand) }) else { return }
      gate.drain(as: ThreadID.current, { drain() }, orLeave: {})
    }

    @usableFromInline
    func cancel() {
      guard let released = lock.withLock({ state.cancel() }) else { return }
      core.remove(self)
      _ = released  // the subscriber and kept values are released here, after the locks
    }

    @usableFromInline
    var description: String { "ReplaySubject" }

    /// The `downstream` (`nil` once released), its `demand` not yet met, and the `buffer` of
    /// values (replayed or live) waiting for it.
    @usableFromInline
    var customMirror: Mirror {
      let (downstream, demand, buffer) = lock.withLock {
        () -> (Downstream?, Subscribers.Demand, [Output]) in
        guard case .active(let active) = state else { return (nil, .none, []) }
        return (active.downstream, active.demand, Array(active.kept))
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
