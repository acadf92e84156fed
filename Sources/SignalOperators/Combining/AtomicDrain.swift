public import Synchronization

/// The drain claim of `zip` and `combineLatest`: the serial drain's protocol (whoever finds work
/// and no one delivering delivers until nothing is left; others add work and leave), with the
/// claim kept in an atomic beside the operator's lock instead of a flag under it.
///
/// The uncontended path claims inside the one critical section it already takes to store the
/// value (``claim()``, a compare-and-swap), delivers, and gives the claim back with one atomic
/// subtraction (``release(draining:)``), where a `SerialDrain` takes the lock a second time per
/// tuple to let go. It is not `SerialDrain` for that reason, measured (Docs/Performance.md:
/// `combineLatest2` and `zip2` on `SerialDrain`).
///
/// Work added while another thread delivers is recorded under the lock and announced with
/// ``signal(draining:)``, which counts a missed request the delivering thread then drains.
@usableFromInline
struct AtomicDrain: ~Copyable {
  /// Drain requests not yet served; the thread that raises it from 0 delivers.
  @usableFromInline let requests = Atomic<Int>(0)

  @inlinable
  init() {}

  /// Claims the drain for a delivery the caller makes at once; `true` when no thread was
  /// delivering. Call it under the operator's lock, after recording the state the delivery
  /// reads; the caller then delivers and calls ``release(draining:)``.
  @inlinable
  func claim() -> Bool {
    requests.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged
  }

  /// Asks for a drain after work was recorded under the lock: the thread that finds no drain
  /// under way runs `drain` until no request is left; otherwise the delivering thread runs it
  /// once more before it lets go.
  @inlinable
  func signal(draining drain: () -> Void) {
    guard requests.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue == 0 else { return }
    drain()
    release(draining: drain)
  }

  /// Gives back the claim taken by ``claim()`` or ``signal(draining:)``, running `drain` again
  /// for each round of requests made meanwhile. The one drain loop of both operators.
  @inlinable
  func release(draining drain: () -> Void) {
    var missed = requests.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
    while missed != 0 {
      drain()
      missed = requests.wrappingSubtract(missed, ordering: .sequentiallyConsistent).newValue
    }
  }
}
