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

  /// The subscribers' conduits. A `send` reads this buffer after the lock without retaining it
  /// (see ``readers``), so every change first calls ``retireConduitsIfRead()``.
  @usableFromInline
  @exclusivity(unchecked) var conduits = ContiguousArray<SubjectConduitBase<Output, Failure>>()

  /// The sends reading a buffer of `conduits` after the lock, times 2, plus 1 while `retired`
  /// holds buffers for them.
  ///
  /// A send counts itself in under the lock and out after its deliveries, instead of retaining
  /// the buffer: the two retain and release calls cost about 40 instructions per send, on a
  /// cache line of its own that every sending thread writes. The count sits beside the lock
  /// word, which a send writes anyway. A change to `conduits` made while a send reads it keeps
  /// the old buffer in `retired` (so the change copies it) until the last such send ends.
  @usableFromInline
  let readers = Atomic<Int>(0)

  /// Buffers of `conduits` replaced while sends were reading them; released by the last of
  /// those sends to end (``releaseRetired()``), or by a change made when none is left.
  @usableFromInline
  @exclusivity(unchecked) var retired: [ContiguousArray<SubjectConduitBase<Output, Failure>>] = []

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
    let targets = lock.withLock { () -> UnsafeBufferPointer<SubjectConduitBase<Output, Failure>>? in
      if keepsLatest {
        replaced = current.take()
        current = value
      }
      guard completion == nil else { return nil }
      // Counted in: until this send counts itself out, the buffer stays alive and unchanged
      // (`retireConduitsIfRead()`), so its address may be used after the lock.
      readers.wrappingAdd(2, ordering: .relaxed)
      return conduits.withUnsafeBufferPointer { $0 }
    }
    _ = replaced
    guard let targets else { return }
    // The buffer holds every conduit, so each is reached without a retain of its own: a
    // retain of the conduit and of its entry closure's context cost about 80 instructions per
    // subscriber and send.
    // A pointer walk: with an index and a count the loop needs one register more than the
    // call leaves it, and spilled one (3 instructions per subscriber).
    if var next = targets.baseAddress {
      let end = next + targets.count
      while next != end {
        Unmanaged.passUnretained(next.pointee)._withUnsafeGuaranteedRef { $0.offer(value) }
        next += 1
      }
    }
    // Counted out; the last reader of a replaced buffer releases it.
    if readers.wrappingSubtract(2, ordering: .releasing).oldValue == 3 { releaseRetired() }
  }

  /// Keeps the buffer of `conduits` in `retired` if a send is reading it, so that the change
  /// about to be made copies it instead of changing or freeing it under that send. Call under
  /// the lock, before every change to `conduits`.
  @inlinable
  @inline(__always)
  func retireConduitsIfRead() {
    // The usual case, no send in progress: a plain load (no send can count in while this
    // thread holds the lock, and none is left to count out).
    if readers.load(ordering: .acquiring) != 0 { retireConduitsIfStillRead() }
  }

  /// ``retireConduitsIfRead()`` once a send was seen reading.
  @usableFromInline
  func retireConduitsIfStillRead() {
    // Sends count themselves in under the lock, so only counting out runs meanwhile. Setting
    // the flag in the same word decides the race with it: a send that counts out after this
    // sees the flag, and one that counted out before isn't counted here.
    let before = readers.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue
    guard before >= 2 else {
      // No send reads the buffer any more: change it in place, and put the word back as it
      // was. (A flag already set with no reader left belongs to the `releaseRetired()` that
      // the last reader is on its way to, and nothing but this lock holder changes the word
      // now.)
      readers.store(before, ordering: .relaxed)
      return
    }
    retired.append(conduits)
  }

  /// Releases the buffers kept for sends that have all ended; called by the last of them.
  @usableFromInline
  func releaseRetired() {
    let taken = lock.withLock { () -> [ContiguousArray<SubjectConduitBase<Output, Failure>>] in
      // A send that began meanwhile (counted in under this lock) releases them when it ends.
      guard
        readers.compareExchange(expected: 1, desired: 0, ordering: .acquiringAndReleasing)
          .exchanged
      else { return [] }
      defer { retired = [] }
      return retired
    }
    _ = taken  // released here, outside the lock: a conduit's deinit may run a subscriber's
  }

  func send(completion: Subscribers.Completion<Failure>) {
    let targets = lock.withLock { () -> ContiguousArray<SubjectConduitBase<Output, Failure>> in
      guard self.completion == nil else { return [] }
      self.completion = completion
      retireConduitsIfRead()
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
      retireConduitsIfRead()
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
      retireConduitsIfRead()
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
