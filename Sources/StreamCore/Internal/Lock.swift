public import Synchronization

#if os(Linux) || os(Android)
internal import StreamCoreShims
#endif

/// The one lock type of StreamKit: a non-recursive mutex used only through ``withLock(_:)``.
///
/// Types keep `let lock = Lock()` next to the `var state` it guards, in the same object. Compared
/// with a separate `LockedState` box this saves one heap allocation per subscription. An
/// uncontended `withLock` is a compare-and-swap and an exchange.
///
/// Inside `withLock` code only reads and writes state. Downstream, upstream, user closures and
/// schedulers are called after it returns ("decide under the lock, act after it"); the one
/// exception is ``DeliveryGate``, which holds a lock across a subscriber's call on purpose. The
/// lock is not recursive, so a re-entrancy mistake shows up as a deadlock in tests rather than
/// as silent state corruption.
///
/// On Linux and Android it is a futex word of our own rather than `Synchronization.Mutex`. There
/// `Mutex` is a priority-inheriting futex: a contended acquire goes to the kernel at once, and
/// an unlock with a waiter hands the lock to that waiter, which must then be scheduled before
/// any thread can take it. With more sending threads than cores that makes a convoy: each
/// hand-off waits for a context switch. Our critical sections never call out, so they are a few
/// dozen instructions long; this lock spins briefly before it sleeps, and an unlock only frees
/// the word and wakes a sleeper, so a running thread may take the lock first (as glibc's default
/// mutex does). It gives up priority inheritance, which no thread of ours relies on: a lock is
/// never held across a call that could block. Elsewhere `Mutex` is already such a lock
/// (`os_unfair_lock` on Apple platforms, an SRW lock on Windows).
@usableFromInline
package struct Lock: ~Copyable, Sendable {
  #if os(Linux) || os(Android)
  /// 0: free; 1: held; 2: held, and a thread may be sleeping on the word.
  @usableFromInline
  let word = Atomic<UInt32>(0)
  #else
  @usableFromInline
  let mutex = Mutex<Void>(())

  /// Makes the lock's ordering visible to ThreadSanitizer.
  ///
  /// Each critical section acquire-loads this atomic first and release-stores it last, which
  /// ThreadSanitizer sees even where a platform's contended `Mutex` hands over in code it
  /// doesn't instrument. On x86-64 and arm64 these are plain loads and stores.
  @usableFromInline
  let sanitizerEdge = Atomic<UInt8>(0)
  #endif

  @inlinable
  package init() {}

  /// Runs `body` while holding the lock.
  @inlinable
  package borrowing func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    #if os(Linux) || os(Android)
    if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
      lockContended()
    }
    defer {
      if word.exchange(0, ordering: .releasing) == 2 { wakeOne() }
    }
    return try body()
    #else
    try mutex.withLock { _ in
      _ = sanitizerEdge.load(ordering: .acquiring)
      defer { sanitizerEdge.store(0, ordering: .releasing) }
      return try body()
    }
    #endif
  }

  #if os(Linux) || os(Android)
  /// Whether a thread waiting for the lock has marked it (it may be asleep); for tests.
  package var hasWaiter: Bool { word.load(ordering: .relaxed) == 2 }

  /// Takes the lock after the first attempt failed: spins while the holder is likely to let
  /// go soon, then sleeps on the word, marked 2 so that the unlock wakes a sleeper.
  @usableFromInline
  @inline(never)
  borrowing func lockContended() {
    var state = spinWhileHeld()
    if state == 0 {
      state = word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).original
      if state == 0 { return }
    }
    while true {
      // Marking the word 2 may leave it 2 after the last sleeper left: one unneeded wake.
      if state != 2, word.exchange(2, ordering: .acquiring) == 0 { return }
      withWordAddress { streamkit_futex_wait($0, 2) }
      state = spinWhileHeld()
    }
  }

  /// Spins while the word is 1 (held, no sleepers), at most 100 times; returns the last state.
  @usableFromInline
  borrowing func spinWhileHeld() -> UInt32 {
    var spins = 100
    while true {
      let state = word.load(ordering: .relaxed)
      if state != 1 || spins == 0 { return state }
      spins -= 1
      streamkit_spin_hint()
    }
  }

  /// Wakes one thread sleeping on the word.
  @usableFromInline
  @inline(never)
  borrowing func wakeOne() {
    withWordAddress { streamkit_futex_wake_one($0) }
  }

  /// Calls `body` with the word's address, for the futex calls. An `Atomic` never moves (it is
  /// borrowed in place, which is how its own operations reach it), so this is its storage in
  /// the object that holds the lock; `LockTests` checks that a sleeper on it is woken.
  @usableFromInline
  borrowing func withWordAddress(_ body: (UnsafeMutablePointer<UInt32>) -> Void) {
    withUnsafePointer(to: word) { atomic in
      body(UnsafeMutableRawPointer(mutating: atomic).assumingMemoryBound(to: UInt32.self))
    }
  }
  #endif
}
