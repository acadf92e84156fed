/// The re-entrant-owner delivery mechanism: the thread that is delivering owns the deliveries, a
/// value offered from that same thread (from inside the subscriber) is delivered at once,
/// re-entrantly, and a value offered from another thread is queued for the owner, which delivers
/// the queue before it lets go.
///
/// Separate from ``SerialDrain`` because a drain's claim can't tell the delivering thread from
/// another one, and a `send` made from inside a subscriber must be delivered at once, as Combine
/// does, not queued behind the delivery in progress.
///
/// Used by StreamTesting's `TestPublisher`. A subject's conduit (`SubjectConduit`) follows the
/// same rules and uses ``Claim``, but keeps its owner in an atomic word (`ConduitClaim`) that the
/// subject's delivering thread reads without the lock, so that a value for a subscriber with
/// unlimited demand takes no lock and no claim. The shape, with the owner under the caller's
/// lock:
///
/// ```swift
/// let me = ThreadID.current
/// // Under the lock: take the demand, then claim; another thread's claim queues the value.
/// let claim = lock.withLock { () -> ReentrantOwner.Claim in
///   demand -= 1
///   let claim = owner.claim(for: me, waiting: !queue.isEmpty)
///   if claim == .queued { queue.append(value) }
///   return claim
/// }
/// // After it: deliver; the outermost delivery on this thread then drains.
/// if claim != .queued { more = downstream.receive(value) }
/// if claim == .outer {
///   ReentrantOwner.run(lock) { state.nextStep() /* releases the owner when it returns nil */ }
///     perform: { step in deliver(step) }
/// }
/// ```
///
/// The thread that subscribes owns the deliveries until `receive(subscription:)` has returned
/// (``init(ownedBy:)``, then ``run(_:next:perform:)``), so nothing from another thread overtakes
/// the subscription. The owner is a value under the caller's lock, like ``SerialDrain``'s flag.
@usableFromInline
package struct ReentrantOwner: Sendable {
  /// How a thread that offers something may deliver it, decided by ``claim(for:waiting:)``.
  @usableFromInline
  package enum Claim: Sendable {
    /// No thread owned the deliveries, and now the caller does: it delivers, then runs the drain
    /// (``run(_:next:perform:)``), which lets go.
    case outer
    /// The caller's thread already owns the deliveries (it is inside the subscriber) and nothing
    /// waits: it delivers at once, and afterwards only hands back the demand the delivery
    /// returned; the outer delivery on the same thread drains.
    case reentrant
    /// Another thread owns the deliveries, or something waits before this: the caller queues
    /// what it offers (its demand already taken), and the owner delivers it.
    case queued
  }

  @usableFromInline
  var owner: ThreadID?

  /// An owner held by `thread`, or by no thread if `nil`.
  ///
  /// A subscription made on the subscribing thread starts owned by it (`ThreadID.current`), and
  /// that thread runs the drain once `receive(subscription:)` has returned.
  @inlinable
  package init(ownedBy thread: ThreadID? = nil) {
    owner = thread
  }

  /// Whether a thread owns the deliveries.
  @inlinable
  package var isOwned: Bool { owner != nil }

  /// Whether `thread` may deliver now without waiting for the owner: no thread owns the
  /// deliveries, or `thread` does and nothing waits (`waiting` is evaluated only then). Doesn't
  /// claim; for a completion, which ends the deliveries rather than taking them over.
  @inlinable
  package func admits(_ thread: ThreadID, waiting: @autoclosure () -> Bool) -> Bool {
    guard let owner else { return true }
    return owner == thread && !waiting()
  }

  /// Claims the deliveries for `thread`, or says why it can't. Call under the lock.
  ///
  /// - Parameters:
  ///   - thread: The calling thread, `ThreadID.current`, read before taking the lock.
  ///   - waiting: Whether something accepted earlier waits for the owner (queued values, a
  ///     pending completion), which a re-entrant delivery must not overtake. Evaluated only when
  ///     `thread` owns the deliveries.
  /// - Returns: ``Claim/outer`` after making `thread` the owner, ``Claim/reentrant`` or
  ///   ``Claim/queued``.
  @inlinable
  package mutating func claim(for thread: ThreadID, waiting: @autoclosure () -> Bool) -> Claim {
    guard let owner else {
      self.owner = thread
      return .outer
    }
    return owner == thread && !waiting() ? .reentrant : .queued
  }

  /// Lets go of the deliveries; does nothing if no thread owns them. Call under the lock, in the
  /// same critical section that found nothing more to deliver, so that nothing queued meanwhile
  /// is left without a deliverer.
  @inlinable
  package mutating func release() {
    owner = nil
  }

  /// One step of an owner's drain, delivered after the lock.
  @usableFromInline
  package enum Step<Output, Failure: Error> {
    /// A value accepted earlier; its demand is already taken.
    case deliver(Output)
    /// The completion; the deliveries end with it.
    case complete(Subscribers.Completion<Failure>)
  }

  /// The owner's drain loop, run by the owning thread after an ``Claim/outer`` delivery, or
  /// after handing over the subscription. `next`, under `lock`, is given the demand the last
  /// delivery returned (`initial` the first time) and hands out what waits (queued values, then
  /// a pending completion), or returns `nil` after ``release()`` in that same call; each step is
  /// delivered to `downstream` outside the lock. The loop itself is
  /// ``SerialDrain/run(_:next:perform:)``'s: only the claim differs.
  @inlinable
  package static func run<Downstream: Subscriber>(
    _ lock: borrowing Lock,
    delivering downstream: Downstream,
    adding initial: Subscribers.Demand,
    next: (Subscribers.Demand) -> Step<Downstream.Input, Downstream.Failure>?
  ) {
    // Set by each delivery before `next` runs again: a completion ends the loop.
    var more = initial
    SerialDrain.run(lock) {
      next(more)
    } perform: { step in
      switch consume step {
      case .deliver(let value):
        more = downstream.receive(value)
        return true
      case .complete(let completion):
        downstream.receive(completion: completion)
        return false
      }
    }
  }
}
