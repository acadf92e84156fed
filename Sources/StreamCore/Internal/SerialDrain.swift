/// The serial-drain delivery mechanism: whichever thread finds work and no one delivering claims
/// the drain, and delivers until nothing is left; other threads only add work under the lock.
///
/// This is the mechanism every stateful operator uses to make sure downstream never receives two
/// calls at once, and that a `request(_:)` made from inside `receive(_:)` doesn't recurse:
///
/// ```swift
/// // Under the lock: record the work, then claim.
/// let claimed = lock.withLock { state.queue.append(value); return state.drain.claim() }
/// // After it: the claiming thread delivers.
/// if claimed {
///   SerialDrain.run(lock) { state.nextStep() /* releases the drain when it returns nil */ }
///     perform: { step in deliver(step) }
/// }
/// ```
///
/// | State | `claim()` (under the lock, after adding work) | the loop's `next` finds work | the loop's `next` finds none |
/// |---|---|---|---|
/// | free (`claimed` false) | → claimed: `true`, the caller runs ``run(_:next:perform:)`` after the lock | — | — |
/// | claimed | `false`: the claiming thread will find the work | takes it; delivered outside the lock | ``release()`` in that same critical section → free |
///
/// Invariants, checked for every interleaving of two and three threads adding work (and
/// adding more from inside a delivery) by `Tests/Interleavings/serial_drain.pml`: one thread
/// at a time delivers; a delivery never runs inside another (work added from inside
/// `receive(_:)` is taken by the loop once the call returns); no work is left undelivered
/// with the drain free, because the drain is released only in the critical section that found
/// nothing, so work added after it finds the drain free and its adder claims it.
///
/// The other mechanism is ``DeliveryGate`` (the subjects' subscriptions, `receive(on:)`,
/// `merge`, `combineLatest`, `zip`, `flatMap`, `switchToLatest`, `TestPublisher`): a sender
/// waits for a busy subscriber and delivers on its own thread, and a `send` from inside the
/// subscriber is delivered at once, as in Combine (`Docs/Internals.md`).
@usableFromInline
package struct SerialDrain: Sendable {
  @usableFromInline
  var claimed = false

  @inlinable
  package init() {}

  /// Whether a thread is delivering.
  @inlinable
  package var isClaimed: Bool { claimed }

  /// Claims the drain. Call under the lock; `true` means the caller must now run the drain
  /// (``run(_:next:perform:)``) after the lock, `false` that another thread is already delivering
  /// and will find the work.
  @inlinable
  package mutating func claim() -> Bool {
    guard !claimed else { return false }
    claimed = true
    return true
  }

  /// Lets go of the drain. Call under the lock, in the same critical section that found nothing
  /// more to deliver, so that no work added meanwhile is left without a deliverer.
  @inlinable
  package mutating func release() {
    precondition(claimed, "SerialDrain.release(): the drain was not claimed")
    claimed = false
  }

  /// The drain loop, run by the thread whose ``claim()`` returned `true`.
  ///
  /// - Parameters:
  ///   - lock: The lock that guards the state `next` reads.
  ///   - next: Called under `lock`. Returns the next step, or `nil` after calling ``release()``
  ///     (or after the state became terminal) in the same call.
  ///   - perform: Called outside the lock with each step; returns `false` when the step ended the
  ///     drain for good (a completion was delivered).
  @inlinable
  package static func run<Step>(
    _ lock: borrowing Lock,
    next: () -> Step?,
    perform: (consuming Step) -> Bool
  ) {
    while let step = lock.withLock(next) {
      guard perform(step) else { return }
    }
  }
}
