#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs callbacks that would otherwise nest one inside another, one after another instead, on
/// the thread that started the first: the way long chains of futures resolve in constant stack
/// [NIO `EventLoopFuture.swift` `CallbackList`].
///
/// ```swift
/// Trampoline.run { notifyWaiters() }  // a waiter that completes another future queues its
///                                     // notification here, to run after this one returns
/// ```
///
/// Outside any trampoline, `run` runs its work at once and then everything queued meanwhile; a
/// `run` from inside that work queues its work for the outermost call on this thread. So work
/// queued by a callback runs after that callback has returned, in the order it was queued.
///
/// > Thread safety: The queue is per thread; nothing is shared between threads.
@usableFromInline
package enum Trampoline {
  /// Runs `work` now, or, inside another `run` on this thread, after the work already queued.
  @usableFromInline
  package static func run(_ work: @escaping () -> Void) {
    #if os(Windows)
    work()  // No thread-local queue on Windows yet: nests as before.
    #else
    if let current = pthread_getspecific(trampolineKey) {
      Unmanaged<TrampolineQueue>.fromOpaque(current).takeUnretainedValue().append(work)
      return
    }
    let queue = TrampolineQueue()
    pthread_setspecific(trampolineKey, Unmanaged.passUnretained(queue).toOpaque())
    defer { pthread_setspecific(trampolineKey, nil) }
    work()
    while let next = queue.next() {
      next()
    }
    withExtendedLifetime(queue) {}
    #endif
  }
}

#if !os(Windows)
/// The key of each thread's current ``TrampolineQueue``, made once.
private let trampolineKey: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key, nil)
  precondition(status == 0, "Trampoline: pthread_key_create failed with \(status)")
  return key
}()

/// The work queued on one thread while its outermost ``Trampoline/run(_:)`` runs; only that
/// thread touches it.
private final class TrampolineQueue {
  private var pending: [() -> Void] = []
  private var head = 0

  func append(_ work: @escaping () -> Void) {
    pending.append(work)
  }

  func next() -> (() -> Void)? {
    guard head < pending.count else {
      pending.removeAll(keepingCapacity: true)
      head = 0
      return nil
    }
    let work = pending[head]
    pending[head] = {}
    head += 1
    if head >= 1_024, head * 2 >= pending.count {
      pending.removeFirst(head)
      head = 0
    }
    return work
  }
}
#endif
