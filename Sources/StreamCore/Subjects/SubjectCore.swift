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
  /// (see ``readers0``), so every change first calls ``retireConduitsIfRead()``.
  @usableFromInline
  @exclusivity(unchecked) var conduits = ContiguousArray<SubjectConduitBase<Output, Failure>>()

  /// The sends of epoch 0 still reading a buffer of `conduits` after the lock, times 2, plus 1
  /// while `retired0` holds buffers for them; ``readers1`` is epoch 1's.
  ///
  /// A send counts itself in under the lock, in the current ``epoch``, and out after its
  /// deliveries, instead of retaining the buffer: the retain and release calls cost about 40
  /// instructions per send, on a cache line of their own that every sending thread writes. A
  /// change made to `conduits` while sends read it keeps the old buffer in the epoch's `retired`
  /// list (so the change copies it), and the epoch's last send to count out releases the list.
  ///
  /// Two epochs, so that a kept buffer waits only for the sends that were running when it was
  /// kept: the epoch flips when a buffer is kept (or, if the other epoch hasn't drained yet, when
  /// it has), so new sends count into the other epoch and the old one only drains. With one
  /// count, sends that overlap without a gap would keep every replaced buffer, and the cancelled
  /// subscribers in it, for as long as they overlap. The buffer in `conduits` is always one made
  /// after the last flip, so only the current epoch's sends read it.
  @usableFromInline
  let readers0 = Atomic<Int>(0)

  /// Epoch 1's count (see ``readers0``).
  @usableFromInline
  let readers1 = Atomic<Int>(0)

  /// The epoch (0 or 1) a send counts itself into.
  @usableFromInline
  @exclusivity(unchecked) var epoch = 0

  /// Whether a send has taken the buffer in `conduits` since it became current: until then a
  /// change may be made in place.
  @usableFromInline
  @exclusivity(unchecked) var handedOut = false

  /// Buffers of `conduits` replaced while epoch 0's sends were reading them.
  @usableFromInline
  @exclusivity(unchecked) var retired0: [ContiguousArray<SubjectConduitBase<Output, Failure>>] =
    []

  /// Buffers of `conduits` replaced while epoch 1's sends were reading them.
  @usableFromInline
  @exclusivity(unchecked) var retired1: [ContiguousArray<SubjectConduitBase<Output, Failure>>] =
    []

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
    let taken = lock.withLock {
      () -> (UnsafeBufferPointer<SubjectConduitBase<Output, Failure>>, epoch: Int)? in
      if keepsLatest {
        replaced = current.take()
        current = value
      }
      guard completion == nil else { return nil }
      // Counted in: until this send counts itself out, the buffer stays alive and unchanged
      // (`retireConduitsIfRead()`), so its address may be used after the lock.
      let epoch = self.epoch
      if epoch == 0 {
        readers0.wrappingAdd(2, ordering: .relaxed)
      } else {
        readers1.wrappingAdd(2, ordering: .relaxed)
      }
      handedOut = true
      // The address outlives the closure, which `withUnsafeBufferPointer` doesn't promise in
      // general; a `ContiguousArray`'s storage is always its own native buffer, which stays
      // where it is while it lives and isn't changed in place. Keep `conduits` a
      // `ContiguousArray`: an `Array` may hand out a temporary copy (bridged, on Apple
      // platforms).
      return (conduits.withUnsafeBufferPointer { $0 }, epoch)
    }
    _ = replaced
    guard let (targets, epoch) = taken else { return }
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
    // Counted out; the epoch's last reader of a replaced buffer releases it.
    let before =
      epoch == 0
      ? readers0.wrappingSubtract(2, ordering: .releasing).oldValue
      : readers1.wrappingSubtract(2, ordering: .releasing).oldValue
    if before == 3 { releaseRetired(epoch) }
  }

  /// Keeps the buffer of `conduits` aside if a send may be reading it, so that the change about
  /// to be made copies it instead of changing or freeing it under that send. Call under the
  /// lock, before every change to `conduits`.
  @inlinable
  @inline(__always)
  func retireConduitsIfRead() {
    // The usual case: no send has taken this buffer, so it changes in place.
    if handedOut { retireHandedOutConduits() }
  }

  /// ``retireConduitsIfRead()`` for a buffer a send has taken.
  @usableFromInline
  func retireHandedOutConduits() {
    handedOut = false  // the buffer the change makes hasn't been taken
    let epoch = self.epoch
    // Only this epoch's sends read the buffer (see `readers0`). They count themselves in under
    // the lock, so only counting out runs meanwhile; setting the flag in the same word decides
    // the race with it: a send that counts out after this sees the flag, and one that counted
    // out before isn't counted here.
    let before = flag(epoch)
    guard before >= 2 else {
      // No send reads it any more: change it in place, and put the word back as it was. (A flag
      // already set with no reader left belongs to the `releaseRetired(_:)` that the last reader
      // is on its way to, and nothing but this lock holder changes the word now.)
      restore(epoch, before)
      return
    }
    if epoch == 0 { retired0.append(conduits) } else { retired1.append(conduits) }
    // New sends count into the other epoch if it has drained, so this one only drains from now
    // on; otherwise the other epoch's last send flips it (`releaseRetired(_:)`).
    if word(1 - epoch) == 0 { self.epoch = 1 - epoch }
  }

  /// Releases the buffers kept for epoch `drained`, whose sends have all ended; called by the
  /// last of them. If the current epoch keeps buffers too, flips to `drained`, so that those
  /// wait only for the sends running now.
  @usableFromInline
  func releaseRetired(_ drained: Int) {
    let taken = lock.withLock { () -> [ContiguousArray<SubjectConduitBase<Output, Failure>>] in
      // A send that began meanwhile (counted in under this lock, so `drained` is the current
      // epoch) releases them when it ends.
      guard clearFlag(drained) else { return [] }
      var taken: [ContiguousArray<SubjectConduitBase<Output, Failure>>] = []
      if drained == 0 { swap(&taken, &retired0) } else { swap(&taken, &retired1) }
      if epoch != drained, self.word(epoch) & 1 != 0 {
        // The current buffer may have been taken by the current epoch's sends: keep it with
        // theirs and give new sends a copy, made after the flip.
        if handedOut {
          handedOut = false
          var copy = ContiguousArray<SubjectConduitBase<Output, Failure>>()
          copy.reserveCapacity(conduits.count)
          copy.append(contentsOf: conduits)
          if epoch == 0 { retired0.append(conduits) } else { retired1.append(conduits) }
          conduits = copy  // the old buffer stays in the list just appended to
        }
        epoch = drained
      }
      return taken
    }
    _ = taken  // released here, outside the lock: a conduit's deinit may run a subscriber's
  }

  /// Sets epoch `epoch`'s flag; returns the word as it was.
  @usableFromInline
  func flag(_ epoch: Int) -> Int {
    epoch == 0
      ? readers0.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue
      : readers1.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue
  }

  /// Puts epoch `epoch`'s word back to `value`; only while no send of it is left.
  @usableFromInline
  func restore(_ epoch: Int, _ value: Int) {
    if epoch == 0 {
      readers0.store(value, ordering: .relaxed)
    } else {
      readers1.store(value, ordering: .relaxed)
    }
  }

  /// Epoch `epoch`'s word.
  @usableFromInline
  func word(_ epoch: Int) -> Int {
    epoch == 0 ? readers0.load(ordering: .acquiring) : readers1.load(ordering: .acquiring)
  }

  /// Clears epoch `epoch`'s flag if no send of it is left; `false` if one is.
  @usableFromInline
  func clearFlag(_ epoch: Int) -> Bool {
    epoch == 0
      ? readers0.compareExchange(expected: 1, desired: 0, ordering: .acquiringAndReleasing)
        .exchanged
      : readers1.compareExchange(expected: 1, desired: 0, ordering: .acquiringAndReleasing)
        .exchanged
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
