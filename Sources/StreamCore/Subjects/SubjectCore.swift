public import Synchronization

/// The state the subjects share: the subscriber list, the completion, the upstream
/// subscriptions and, for ``CurrentValueSubject`` and `@Published`, the current value.
///
/// The subject object itself is a thin public shell over this core. Conduits hold the core, not
/// the subject, to remove themselves when cancelled.
///
/// A `send` takes the list of conduits under the lock (the array, retained: a change made
/// meanwhile copies it) and offers the value to each after the lock, on the sending thread;
/// each conduit decides by its subscriber's demand and delivers through its own gate
/// (``SubjectConduit``). So several threads may send at once, each waiting only for a
/// subscriber that another thread is inside.
// Sendable: every mutable property is guarded by `lock`; conduits are called after it.
@usableFromInline
final class SubjectCore<Output, Failure: Error>: @unchecked Sendable, CustomStringConvertible {
  @usableFromInline
  let lock = Lock()

  // Every `var` below is read and written only under `lock`.

  /// The subscribers' conduits, in subscription order.
  @usableFromInline
  @exclusivity(unchecked) var conduits = ContiguousArray<SubjectConduitBase<Output, Failure>>()

  @usableFromInline
  @exclusivity(unchecked) var completion: Subscribers.Completion<Failure>?

  /// The subject's value; set only for a current-value subject.
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

  /// `true` for a current-value subject: a subscriber that missed a value gets the current one
  /// at its next request.
  @usableFromInline
  let keepsLatest: Bool

  /// `true` for `@Published`'s subject: a sent value becomes the current one after it was
  /// delivered, as a property's storage changes after its `willSet` (a current-value subject
  /// stores it first).
  @usableFromInline
  let storesAfterDelivery: Bool

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

  init(
    name: StaticString,
    current: Output?,
    keepsLatest: Bool,
    storesAfterDelivery: Bool = false,
    namesFailure: Bool = true
  ) {
    self.name = name
    self.current = current
    self.keepsLatest = keepsLatest
    self.storesAfterDelivery = storesAfterDelivery
    self.requestsUpstream = keepsLatest
    self.requestedUpstream = Atomic(keepsLatest)
    self.namesFailure = namesFailure
  }

  /// Sends `value` to the subscribers the subject has now, on this thread; returns once each
  /// subscriber that had demand for it has received it. Ignored after the completion, except
  /// that `storingAfterEnd` (a current-value subject's `value` setter) still stores it, as
  /// Combine's does.
  @inlinable
  func send(_ value: Output, storingAfterEnd: Bool = false) {
    // The replaced current value is released after the lock and the deliveries.
    var replaced: Output?
    let targets = lock.withLock { () -> ContiguousArray<SubjectConduitBase<Output, Failure>>? in
      if keepsLatest, !storesAfterDelivery, completion == nil || storingAfterEnd {
        replaced = current.take()
        current = value
      }
      guard completion == nil else { return nil }
      return conduits
    }
    guard let targets else { return }
    let me = ThreadID.current
    // Each conduit is reached through the array this send holds, without a retain of its own.
    targets.withUnsafeBufferPointer { conduits in
      for index in conduits.indices {
        Unmanaged.passUnretained(conduits[index])._withUnsafeGuaranteedRef {
          $0.offer(value, from: me)
        }
      }
    }
    if storesAfterDelivery {
      lock.withLock {
        replaced = current.take()
        current = value
      }
    }
    _ = replaced
  }

  /// Ends the subject: sends the completion to every subscriber, once, on this thread.
  func send(completion: Subscribers.Completion<Failure>) {
    let targets = lock.withLock { () -> ContiguousArray<SubjectConduitBase<Output, Failure>> in
      guard self.completion == nil else { return [] }
      self.completion = completion
      defer { conduits = [] }
      return conduits
    }
    let me = ThreadID.current
    for conduit in targets {
      conduit.finish(completion, from: me)
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

  /// Attaches `subscriber`: it receives its subscription, or, if the subject has ended, an
  /// empty subscription and the completion.
  @inlinable
  func subscribe<S: Subscriber>(_ subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    let conduit = SubjectConduit<S?>(downstream: subscriber, core: self)
    let ended = lock.withLock { () -> Subscribers.Completion<Failure>? in
      if let completion { return completion }
      conduits.append(conduit)
      return nil
    }
    if let ended {
      let unused = conduit.lock.withLock { conduit.downstream.takeDownstream() }
      _ = unused  // released here, outside the lock
      subscriber.receive(subscription: Subscriptions.empty)
      subscriber.receive(completion: ended)
      return
    }
    subscriber.receive(subscription: conduit)
  }

  /// Removes a conduit that was cancelled.
  @usableFromInline
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

  @usableFromInline
  var currentValue: Output {
    lock.withLock {
      guard let current else { preconditionFailure("SubjectCore: no current value") }
      return current
    }
  }
}
