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

  /// The subscribers' conduits. The delivering thread reads this buffer after the lock without
  /// retaining it (see ``delivering``), so every change first calls ``retireConduitsIfRead()``.
  @usableFromInline
  @exclusivity(unchecked) var conduits = ContiguousArray<SubjectConduitBase<Output, Failure>>()

  /// Whether a send has taken the buffer in `conduits` since it became current: until then a
  /// change may be made in place.
  @usableFromInline
  @exclusivity(unchecked) var handedOut = false

  /// Buffers of `conduits` replaced while the delivering thread may still read them, each with
  /// ``queued`` at its replacement: only the sends queued before it may read it, so the
  /// delivering thread releases it, between two deliveries, once it has delivered those.
  @usableFromInline
  @exclusivity(unchecked) var retired:
    [(buffer: ContiguousArray<SubjectConduitBase<Output, Failure>>, queuedBefore: Int)] = []

  /// Conduits that ended with their path open while a thread delivered: that thread may have
  /// been calling their subscribers where the conduits store them (the open path claims
  /// nothing). It releases those subscribers (`clearEndedSlot()`) between two deliveries, when
  /// it calls none of them. Set with the retired bit, so that it doesn't let go before.
  @usableFromInline
  @exclusivity(unchecked) var ended: [SubjectConduitBase<Output, Failure>] = []

  /// How many sends (and completions) have been queued in ``pending``, ever; wraps.
  @usableFromInline
  @exclusivity(unchecked) var queued = 0

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

  /// The thread delivering this subject's sends (its ``ThreadID``, 0 if none), plus
  /// ``waitingBit`` while ``pending`` holds something for it and ``retiredBit`` while
  /// ``retired`` or ``ended`` does.
  ///
  /// One thread at a time delivers: a send from another thread meanwhile is queued in
  /// ``pending`` for it, and one from the same thread (from inside a subscriber) is delivered at
  /// once, re-entrantly, when nothing is queued before it (``ReentrantOwner``'s rules). So every
  /// reading of a buffer of `conduits` after the lock is the delivering thread's, and a buffer
  /// replaced while a thread delivers is kept until that thread has delivered the sends that
  /// may read it (``retired``): no send counts itself in and out, and none retains the buffer.
  /// It also keeps the deliveries, and the subscribers' state, on one core under contention,
  /// instead of moving every subscriber's cache lines between the sending threads (the
  /// `contended4x2` benchmark, Docs/Performance.md).
  ///
  /// Only lock holders claim the word and set the bits, and only the owner, under the lock,
  /// clears them. The owner lets go without the lock, with a compare-and-swap that fails while a
  /// bit is set, so an uncontended send takes the lock once and makes one atomic operation
  /// after it. A thread's identity is at least 4-aligned, so bits 0 and 1 are free (as in
  /// `ConduitClaim`).
  @usableFromInline
  let delivering = Atomic<UInt>(0)

  /// Set in ``delivering`` while ``pending`` isn't empty.
  @usableFromInline
  static var waitingBit: UInt { 1 }

  /// Set in ``delivering`` while ``retired`` or ``ended`` isn't empty.
  @usableFromInline
  static var retiredBit: UInt { 2 }

  /// Both bits.
  @usableFromInline
  static var bits: UInt { 3 }

  /// Sends, and a completion, made while another thread delivers, in the order they were made;
  /// the delivering thread delivers them before it lets go.
  @usableFromInline
  @exclusivity(unchecked) var pending = RingBuffer<PendingSend>()

  /// An empty buffer for ``pending``, kept between batches (see ``deliverQueued(_:)``).
  @usableFromInline
  @exclusivity(unchecked) var spare = RingBuffer<PendingSend>()

  /// The largest queue buffer kept once the delivering thread lets go, in slots.
  @usableFromInline
  static var keptQueueSlots: Int { 1_024 }

  /// A send or completion waiting in ``pending``.
  @usableFromInline
  enum PendingSend {
    /// A value, with the subscribers it was sent to: the buffer of `conduits` when it was sent,
    /// which stays alive and unchanged until it is delivered (``retireConduitsIfRead()``).
    case value(Output, UnsafeBufferPointer<SubjectConduitBase<Output, Failure>>)
    /// The completion, with the subscribers it ends.
    case completion(
      Subscribers.Completion<Failure>,
      ContiguousArray<SubjectConduitBase<Output, Failure>>
    )
  }

  /// Sends `value` to the subscribers the subject has now.
  ///
  /// One thread at a time delivers the subject's values (``delivering``): a send that finds
  /// another thread delivering queues its value, with the subscribers it is for, and returns;
  /// the delivering thread delivers it before it lets go.
  @inlinable
  func send(_ value: Output) {
    let me = ThreadID.current
    // The replaced current value is released after the delivery (below).
    var replaced: Output?
    let taken = lock.withLock {
      () -> (UnsafeBufferPointer<SubjectConduitBase<Output, Failure>>, ReentrantOwner.Claim)? in
      if keepsLatest {
        replaced = current.take()
        current = value
      }
      guard completion == nil else { return nil }
      // Taken: until the delivering thread has delivered this send, the buffer stays alive and
      // unchanged (`retireConduitsIfRead()`), so its address may be used after the lock.
      handedOut = true
      // The address outlives the closure, which `withUnsafeBufferPointer` doesn't promise in
      // general; a `ContiguousArray`'s storage is always its own native buffer, which stays
      // where it is while it lives and isn't changed in place. Keep `conduits` a
      // `ContiguousArray`: an `Array` may hand out a temporary copy (bridged, on Apple
      // platforms).
      let targets = conduits.withUnsafeBufferPointer { $0 }
      let claim = claimDelivery(for: me)
      if claim == .queued { enqueue(.value(value, targets)) }
      return (targets, claim)
    }
    if let (targets, claim) = taken, claim != .queued {
      deliver(value, to: targets, from: me)
      // Lets go, unless something was queued or replaced meanwhile (a bit is set): then sees
      // to it.
      if claim == .outer,
        !delivering.compareExchange(expected: me.rawValue, desired: 0, ordering: .releasing)
          .exchanged
      {
        deliverQueued(me)
      }
    }
    // Released last, after the lock: if its deinit sends, that value goes down after this one,
    // so the subscribers end on the subject's current value.
    _ = replaced
  }

  /// Claims the deliveries for `thread`, or says why it can't (``ReentrantOwner``'s rules);
  /// for ``Claim/queued`` the caller queues in ``pending``, and the bit is already set. Call it
  /// under the lock.
  @inlinable
  @inline(__always)
  func claimDelivery(for thread: ThreadID) -> ReentrantOwner.Claim {
    // Acquiring: a 0 written by the last owner letting go orders its deliveries before this.
    let word = delivering.load(ordering: .acquiring)
    if word == 0 {
      // No owner: nothing but lock holders changes the word now.
      delivering.store(thread.rawValue, ordering: .relaxed)
      return .outer
    }
    if word & ~Self.bits == thread.rawValue, word & Self.waitingBit == 0 { return .reentrant }
    return setBit(Self.waitingBit, on: word, for: thread) ? .queued : .outer
  }

  /// Queues `send` for the delivering thread. Call it under the lock, after
  /// ``claimDelivery(for:)`` returned ``ReentrantOwner/Claim/queued``.
  ///
  /// Not inlined (nor is ``setBit(_:on:for:)``): only contention reaches them, and `send`'s
  /// critical section stays small.
  @inlinable
  @inline(never)
  func enqueue(_ send: consuming PendingSend) {
    pending.append(send)
    queued &+= 1
  }

  /// Sets `bit` in ``delivering``, which read `word` (not 0), unless the owner lets go
  /// meanwhile: then `thread` takes the deliveries instead (returns `false`). Call it under the
  /// lock.
  @inlinable
  @inline(never)
  func setBit(_ bit: UInt, on word: UInt, for thread: ThreadID?) -> Bool {
    var word = word
    while word & bit == 0 {
      // Only the owner's letting go (to 0) can change the word meanwhile.
      let (exchanged, original) = delivering.compareExchange(
        expected: word,
        desired: word | bit,
        ordering: .acquiring
      )
      if exchanged { return true }
      word = original
      if word == 0 {
        if let thread { delivering.store(thread.rawValue, ordering: .relaxed) }
        return false
      }
    }
    return true
  }

  /// The delivering thread's loop once its own send is delivered and other threads queued sends
  /// (or a completion), or buffers were replaced, meanwhile: delivers what waits, in order,
  /// taking all of it at once (one lock round trip per batch rather than per send), and lets go
  /// when nothing is left.
  ///
  /// Before each batch, with no delivery under way, it releases the replaced buffers that no
  /// send left to deliver reads (those replaced before every send still queued, or in the
  /// batch); so a cancelled subscriber goes as soon as the sends that may reach it have ended,
  /// even while other threads keep sending. It also releases the subscribers of conduits that
  /// ended while it may have been inside them (``ended``).
  ///
  /// Not inlined into `send`: only contention, or a change to the subscribers during a send,
  /// reaches it.
  @inlinable
  @inline(never)
  func deliverQueued(_ me: ThreadID) {
    // The batch being delivered. Its buffer goes back as ``pending``'s next one, and is kept
    // in ``spare`` in between, so that a steady contention allocates nothing.
    var batch = RingBuffer<PendingSend>()
    repeat {
      // Buffers grown past `keptQueueSlots` by a burst, empty, released after the lock.
      var trimmedPending = RingBuffer<PendingSend>()
      var trimmedSpare = RingBuffer<PendingSend>()
      // Conduits that ended meanwhile, their subscribers now called by no one.
      var endedNow: [SubjectConduitBase<Output, Failure>] = []
      let released = lock.withLock {
        () -> [(buffer: ContiguousArray<SubjectConduitBase<Output, Failure>>, queuedBefore: Int)]
        in
        // Take the spare on the first pass, and again after a pass that found nothing queued
        // (another thread queued before this one could let go), so that the buffer `pending`
        // gets next is never one without storage.
        if batch.slots.isEmpty { swap(&batch, &spare) }
        if !ended.isEmpty { swap(&endedNow, &ended) }
        var released:
          [(
            buffer: ContiguousArray<SubjectConduitBase<Output, Failure>>, queuedBefore: Int
          )] = []
        guard pending.isEmpty else {
          // Every send queued before `delivered` is delivered: the buffers replaced before then
          // are read by none of this batch's sends.
          let delivered = queued &- pending.count
          let done = retired.prefix { delivered &- $0.queuedBefore >= 0 }.count
          if done > 0 {
            released.append(contentsOf: retired[..<done])
            retired.removeFirst(done)
          }
          if retired.isEmpty {
            // Clear the retired bit (the waiting bit stays).
            delivering.store(me.rawValue | Self.waitingBit, ordering: .relaxed)
          }
          swap(&batch, &pending)
          return released
        }
        // Nothing waits, so no reading of a replaced buffer is left: clear the bits.
        delivering.store(me.rawValue, ordering: .relaxed)
        swap(&batch, &spare)
        swap(&released, &retired)
        // A burst can grow the queue's buffers far; keep them only up to a modest size.
        if pending.slots.count > Self.keptQueueSlots { swap(&trimmedPending, &pending) }
        if spare.slots.count > Self.keptQueueSlots { swap(&trimmedSpare, &spare) }
        return released
      }
      // Released here, outside the lock, between deliveries: a conduit's deinit may run a
      // subscriber's, which may send (re-entrantly, then).
      for conduit in endedNow { conduit.clearEndedSlot() }
      _ = consume endedNow
      _ = consume released
      while let next = batch.popFirst() {
        switch consume next {
        case .value(let value, let targets):
          deliver(value, to: targets, from: me)
        case .completion(let completion, let targets):
          for conduit in targets { conduit.finish(completion) }
        }
      }
    } while !delivering.compareExchange(expected: me.rawValue, desired: 0, ordering: .releasing)
      .exchanged
  }

  /// Offers `value` to each conduit of `targets`, on thread `me` (the delivering thread), which
  /// the conduits need to tell a re-entrant delivery from a concurrent one: read once per send
  /// rather than once per subscriber.
  @inlinable
  @inline(__always)
  func deliver(
    _ value: Output,
    to targets: UnsafeBufferPointer<SubjectConduitBase<Output, Failure>>,
    from me: ThreadID
  ) {
    // The buffer holds every conduit, so each is reached without a retain of its own: a
    // retain of the conduit and of its entry closure's context cost about 80 instructions per
    // subscriber and send.
    // A pointer walk: with an index and a count the loop needs one register more than the
    // call leaves it, and spilled one (3 instructions per subscriber).
    if var next = targets.baseAddress {
      let end = next + targets.count
      while next != end {
        Unmanaged.passUnretained(next.pointee)._withUnsafeGuaranteedRef {
          $0.offer(value, from: me)
        }
        next += 1
      }
    }
  }

  /// Keeps the buffer of `conduits` aside if the delivering thread may be reading it, so that
  /// the change about to be made copies it instead of changing or freeing it under that thread.
  /// Call under the lock, before every change to `conduits`.
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
    // Acquiring: a 0 written by the last owner letting go orders its readings of the buffer
    // before the change made in place.
    let word = delivering.load(ordering: .acquiring)
    // No thread delivers, so none reads it: change it in place. Otherwise the owner releases
    // it when it has nothing left to deliver; if it lets go meanwhile, it read it no more.
    guard word != 0, setBit(Self.retiredBit, on: word, for: nil) else { return }
    retired.append((conduits, queued))
  }

  /// Ends the subject. While another thread delivers, or values wait for this one, the
  /// completion is queued behind them, so that every value sent before it is delivered first.
  func send(completion: Subscribers.Completion<Failure>) {
    let me = ThreadID.current
    let targets = lock.withLock { () -> ContiguousArray<SubjectConduitBase<Output, Failure>> in
      guard self.completion == nil else { return [] }
      self.completion = completion
      retireConduitsIfRead()
      defer { conduits = [] }
      // Delivered now when no thread delivers, or from inside a delivery with nothing queued;
      // otherwise queued behind what waits.
      let claim = claimDelivery(for: me)
      switch claim {
      case .queued:
        enqueue(.completion(completion, conduits))
        return []
      case .outer:
        delivering.store(0, ordering: .relaxed)  // a completion doesn't take the deliveries
        return conduits
      case .reentrant:
        return conduits
      }
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

  /// Removes a conduit that was cancelled. `slotLeft`: it ended with its path open and left
  /// its subscriber in place; the thread delivering now, if any, may be calling it there (even
  /// this thread, cancelling from inside it), and releases it when it calls none; otherwise no
  /// thread can be (one that claims after this sees the path closed), and it is released now.
  @inlinable
  func remove(_ conduit: SubjectConduitBase<Output, Failure>, slotLeft: Bool = false) {
    var kept = false
    let removed = lock.withLock { () -> SubjectConduitBase<Output, Failure>? in
      if slotLeft { kept = keepForDeliveringThread(conduit) }
      guard let index = conduits.firstIndex(where: { $0 === conduit }) else { return nil }
      retireConduitsIfRead()
      return conduits.remove(at: index)
    }
    if slotLeft, !kept { conduit.clearEndedSlot() }
    _ = removed  // released here, outside the lock
  }

  /// For a conduit that the completion ended with its path open, on thread `me`, which sent the
  /// completion to it: if `me` delivers the subject's values, it may be inside a delivery to
  /// that subscriber (a completion sent from there), so the subscriber waits until it lets
  /// go; otherwise no thread delivers (a completion waits for the delivering thread) and it is
  /// released now.
  @usableFromInline
  func clearSlot(of conduit: SubjectConduitBase<Output, Failure>, ownedBy me: ThreadID) {
    // Only this thread puts itself in the word or takes itself out.
    let owner = delivering.load(ordering: .relaxed) & ~Self.bits
    if owner == me.rawValue, lock.withLock({ keepForDeliveringThread(conduit) }) { return }
    conduit.clearEndedSlot()
  }

  /// Keeps `conduit`, which ended with its subscriber left in place, for the thread delivering
  /// now, if any (``ended``); `false` if none does. Call it under the lock, after the conduit
  /// closed its path: a thread that claims the deliveries after this lock sees it closed.
  @usableFromInline
  func keepForDeliveringThread(_ conduit: SubjectConduitBase<Output, Failure>) -> Bool {
    // Acquiring: a 0 written by the last owner letting go orders its deliveries, and its
    // readings of the subscriber, before the release.
    let word = delivering.load(ordering: .acquiring)
    // If the owner lets go meanwhile, it calls the subscriber no more.
    guard word != 0, setBit(Self.retiredBit, on: word, for: nil) else { return false }
    ended.append(conduit)
    return true
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
