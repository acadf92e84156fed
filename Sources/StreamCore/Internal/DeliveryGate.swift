public import Synchronization

/// The gate a subject's subscription passes to call its subscriber: one thread at a time holds
/// it, the holding thread passes again at once (a `send` from inside the subscriber), and any
/// other thread waits until the holder is done. It is Combine's per-subscriber recursive lock:
/// a value is delivered on the thread that sent it, and `send` returns once it was delivered.
///
/// It is a `Lock` held for the whole call, plus the holder's identity, which a thread compares
/// with its own to tell a re-entrant pass from a concurrent one:
///
/// | State | `holder` | `lock` | `pass` by the holder | `pass` by another thread | the outermost `pass` returns |
/// |---|---|---|---|---|---|
/// | free | 0 | free | — | takes `lock`, writes itself: held(it) | — |
/// | held(t) | t | held by t | runs its body at once, changes nothing | waits for `lock` | t writes 0, then frees `lock`: free |
///
/// Invariants, checked with the subjects' subscription that uses the gate, for every
/// interleaving of two and three threads, by `Tests/Interleavings/subject_conduit.pml`:
/// - `holder == t` exactly while t holds `lock` (only t writes its own identity, after taking
///   `lock`, and clears it before freeing it), so a thread that reads its own identity holds the
///   gate and one that reads anything else doesn't: a relaxed load is enough, since a thread
///   always sees its own writes;
/// - one thread at a time runs a body, except that the holder's nested bodies run inside its
///   outer one (re-entrancy, as with Combine's recursive lock).
///
/// Holding a `Lock` across a call to user code is what this type is for, and the one place that
/// does it: the wait it makes a concurrent sender do is Combine's. Like Combine's, it deadlocks
/// if a subscriber, while it receives on one thread, waits for another thread that sends to the
/// same subscriber (`Docs/Migration/FromCombine.md`, "Threads").
@usableFromInline
package struct DeliveryGate: ~Copyable, Sendable {
  @usableFromInline
  let lock = Lock()

  /// The holding thread's identity, 0 when free; written only by that thread, holding `lock`.
  @usableFromInline
  let holder = Atomic<UInt>(0)

  @inlinable
  package init() {}

  /// Whether `thread`, the calling thread, holds the gate: it is inside `pass`.
  @inlinable
  package borrowing func isHeld(by thread: ThreadID) -> Bool {
    holder.load(ordering: .relaxed) == thread.rawValue
  }

  /// Runs `body` holding the gate: at once if the calling thread `me` holds it already, after
  /// the holder is done otherwise.
  @inlinable
  package borrowing func pass<Result>(
    as me: ThreadID,
    _ body: () throws -> Result
  ) rethrows -> Result {
    if holder.load(ordering: .relaxed) == me.rawValue { return try body() }
    return try lock.withLock {
      holder.store(me.rawValue, ordering: .relaxed)
      defer { holder.store(0, ordering: .relaxed) }
      return try body()
    }
  }

  /// Runs `body` holding the gate, as ``pass(as:_:)`` does, and tells it whether this pass took
  /// the gate (`true`: the outermost pass of the holding thread, which may run a drain loop
  /// after its own delivery) or is nested inside one (`false`: it leaves queued work to the
  /// outer pass, so that nothing delivers from deeper in the stack than one level).
  @inlinable
  package borrowing func enter<Result>(
    as me: ThreadID,
    _ body: (_ outermost: Bool) throws -> Result
  ) rethrows -> Result {
    if holder.load(ordering: .relaxed) == me.rawValue { return try body(false) }
    return try lock.withLock {
      holder.store(me.rawValue, ordering: .relaxed)
      defer { holder.store(0, ordering: .relaxed) }
      return try body(true)
    }
  }

  /// Runs `drain` holding the gate when the calling thread `me` can take it (the outermost
  /// pass); from inside a pass of its own, runs `leave` instead, which records the work for that
  /// outer pass to drain once the subscriber's call returns.
  @inlinable
  package borrowing func drain(as me: ThreadID, _ drain: () -> Void, orLeave leave: () -> Void) {
    enter(as: me) { outermost in
      if outermost { drain() } else { leave() }
    }
  }
}
