public import Synchronization

/// The state both subjects share: the subscriber list, the completion, the upstream
/// subscriptions and, for ``CurrentValueSubject``, the current value.
///
/// The subject object itself is a thin public shell over this core. Conduits hold the core, not
/// the subject, to remove themselves when cancelled.
// Sendable: every mutable property is guarded by `lock`; conduits are called after it.
@usableFromInline
final class SubjectCore<Output, Failure: Error>: @unchecked Sendable, CustomStringConvertible {
  @usableFromInline
  let lock = Lock()

  @usableFromInline
  @exclusivity(unchecked) var conduits = ContiguousArray<SubjectConduitBase<Output, Failure>>()

  @usableFromInline
  @exclusivity(unchecked) var completion: Subscribers.Completion<Failure>?

  /// The value a new subscriber receives first; set only for a current-value subject.
  @usableFromInline
  @exclusivity(unchecked) var current: Output?

  /// What the subject was subscribed to (`upstream.subscribe(subject)`), until that upstream
  /// ends or the subject goes away.
  @usableFromInline
  @exclusivity(unchecked) var upstreams: [any Subscription] = []

  /// Whether the upstreams have been asked for `.unlimited`: at once for a current-value subject,
  /// and for a passthrough subject once one of its subscribers has demand, as Combine does, so
  /// that nothing an upstream sends before that is lost.
  @usableFromInline
  @exclusivity(unchecked) var requestsUpstream: Bool

  /// `requestsUpstream`, readable without the lock: once `true` it stays so, so a conduit that
  /// reads `true` knows that telling the core its subscriber has demand would change nothing.
  @usableFromInline
  let requestedUpstream: Atomic<Bool>

  /// `true` for ``CurrentValueSubject``: conduits keep the latest value while they lack demand.
  @usableFromInline
  let keepsLatest: Bool

  /// The description of this subject's subscriptions.
  @usableFromInline
  let name: StaticString

  /// Whether ``description`` names the failure type: `false` for `@Published`'s subject, whose
  /// failure is always `Never` (`PublishedSubject<Int>`, as in Combine).
  @usableFromInline
  let namesFailure: Bool

  /// Described as the subject it is the core of (`PassthroughSubject<Int, Never>`), for the
  /// conduits' mirrors.
  @usableFromInline
  var description: String {
    namesFailure ? "\(name)<\(Output.self), \(Failure.self)>" : "\(name)<\(Output.self)>"
  }

  init(name: StaticString, current: Output?, keepsLatest: Bool, namesFailure: Bool = true) {
    self.name = name
    self.current = current
    self.keepsLatest = keepsLatest
    self.requestsUpstream = keepsLatest
    self.requestedUpstream = Atomic(keepsLatest)
    self.namesFailure = namesFailure
  }

  @inlinable
  func send(_ value: Output) {
    // The replaced current value is released after the lock: its deinit may call back here.
    var replaced: Output?
    let targets = lock.withLock { () -> ContiguousArray<SubjectConduitBase<Output, Failure>>? in
      if keepsLatest {
        replaced = current.take()
        current = value
      }
      guard completion == nil else { return nil }
      return conduits
    }
    _ = replaced
    guard let targets else { return }
    // The snapshot holds every conduit, so each is reached without a retain of its own: a
    // retain of the conduit and of its entry closure's context cost about 80 instructions per
    // subscriber and send.
    targets.withUnsafeBufferPointer { conduits in
      for index in conduits.indices {
        Unmanaged.passUnretained(conduits[index])._withUnsafeGuaranteedRef { $0.offer(value) }
      }
    }
  }

  func send(completion: Subscribers.Completion<Failure>) {
    let targets = lock.withLock { () -> ContiguousArray<SubjectConduitBase<Output, Failure>> in
      guard self.completion == nil else { return [] }
      self.completion = completion
      defer { conduits = [] }
      return conduits
    }
    for conduit in targets {
      conduit.finish(completion)
    }
  }

  func send(subscription: any Subscription) {
    let requests = lock.withLock { () -> Bool in
      upstreams.append(subscription)
      return requestsUpstream
    }
    if requests { subscription.request(.unlimited) }
  }

  /// Called by a conduit whose subscriber requests: the first call asks every upstream for
  /// `.unlimited`; later calls do nothing.
  @usableFromInline
  func subscriberDemanded() {
    let targets = lock.withLock { () -> [any Subscription] in
      guard !requestsUpstream else { return [] }
      requestsUpstream = true
      requestedUpstream.store(true, ordering: .relaxed)
      return upstreams
    }
    for upstream in targets {
      upstream.request(.unlimited)
    }
  }

  /// Drops an upstream subscription that has ended, so that a subject subscribed to many
  /// short-lived upstreams (a `share()` whose subscribers come and go) doesn't keep them all.
  func releaseUpstream(_ subscription: any Subscription) {
    let id = subscription.combineIdentifier
    let removed = lock.withLock { () -> (any Subscription)? in
      guard let index = upstreams.firstIndex(where: { $0.combineIdentifier == id }) else {
        return nil
      }
      return upstreams.remove(at: index)
    }
    _ = removed  // released here, outside the lock
  }

  /// The subjects' `sink`: the closures become the conduit's downstream directly, so one object
  /// (the conduit) stands for the subscriber and its subscription, instead of a
  /// `Subscribers.Sink` and a conduit; the token cancels the conduit.
  @inlinable
  func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    let subscriber = ClosureSink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    // One token made on one path: the optimiser can then keep it on the stack when it doesn't
    // escape. Its closure captures the conduit alone (the conduit is the closure's context, no
    // allocation) and cancels it directly rather than through its `cancelEntry`.
    let conduit = subscribe(subscriber, pinned: true)
    return AnyCancellable { conduit.specialisedCancel() }
  }

  /// Attaches `subscriber` and returns its conduit, which is already terminal if the subject
  /// had ended (the subscriber then received the completion).
  ///
  /// `pinned`: the conduit also keeps the subscriber for its own lifetime (see
  /// `SubjectConduit.pinned`); only for subscribers that don't hold their subscription.
  @inlinable
  @discardableResult
  func subscribe<S: Subscriber>(_ subscriber: S, pinned: Bool = false) -> SubjectConduit<S?>
  where S.Input == Output, S.Failure == Failure {
    let conduit = SubjectConduit<S?>(downstream: subscriber, core: self, pinned: pinned)
    let ended = lock.withLock { () -> Subscribers.Completion<Failure>? in
      if let completion { return completion }
      // The conduit is not shared yet, so its state may be seeded here, atomically with joining.
      if keepsLatest { conduit.backlog = SubjectBacklog(latest: current) }
      conduits.append(conduit)
      return nil
    }
    if let ended {
      let released = conduit.lock.withLock { conduit.terminate() }
      _ = released  // released here, outside the lock
      subscriber.receive(subscription: Subscriptions.empty)
      subscriber.receive(completion: ended)
      return conduit
    }
    conduit.start(subscriber)
    return conduit
  }

  @inlinable
  func remove(_ conduit: SubjectConduitBase<Output, Failure>) {
    let removed = lock.withLock { () -> SubjectConduitBase<Output, Failure>? in
      guard let index = conduits.firstIndex(where: { $0 === conduit }) else { return nil }
      return conduits.remove(at: index)
    }
    _ = removed  // released here, outside the lock
  }

  /// Cancels what the subject subscribed to; called when the subject goes away.
  func cancelUpstreams() {
    let taken = lock.withLock { () -> [any Subscription] in
      defer { upstreams = [] }
      return upstreams
    }
    for upstream in taken {
      upstream.cancel()
    }
  }

  var currentValue: Output {
    lock.withLock {
      guard let current else { preconditionFailure("SubjectCore: no current value") }
      return current
    }
  }
}
