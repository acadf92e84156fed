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
/// let trampoline = Trampoline.current
/// if trampoline.isRunning {
///   trampoline.enqueue { notifyWaiters() }  // runs after the work on this thread returns
/// } else {
///   trampoline.run { notifyWaiters() }  // runs now, then everything queued meanwhile
/// }
/// ```
///
/// Each thread has one trampoline, made on first use and kept until the thread ends, so the
/// common case (nothing nested) allocates nothing: `run` takes a non-escaping closure, and only
/// work queued from inside a `run` is stored.
///
/// > Thread safety: Per thread; use only the current thread's, from that thread.
@usableFromInline
package final class Trampoline {
  private var pending: [() -> Void] = []
  private var head = 0
  /// Whether a ``run(_:)`` is in progress on this thread.
  @usableFromInline
  package internal(set) var isRunning = false

  @usableFromInline
  init() {}

  /// This thread's trampoline.
  @usableFromInline
  package static var current: Trampoline {
    #if os(Windows)
    Trampoline()  // No thread-local storage wired up on Windows yet: nothing is ever queued.
    #else
    if let pointer = pthread_getspecific(trampolineKey) {
      return Unmanaged<Trampoline>.fromOpaque(pointer).takeUnretainedValue()
    }
    let trampoline = Trampoline()
    // Retained for the thread's lifetime; the key's destructor releases it.
    pthread_setspecific(trampolineKey, Unmanaged.passRetained(trampoline).toOpaque())
    return trampoline
    #endif
  }

  /// Runs `work` now, then the work queued while it ran, in order. Traps inside another `run`
  /// on this thread: check ``isRunning`` and ``enqueue(_:)`` instead.
  @inlinable
  package func run(_ work: () -> Void) {
    precondition(!isRunning, "Trampoline.run: already running on this thread; enqueue instead")
    isRunning = true
    defer { isRunning = false }
    work()
    while let next = nextQueued() {
      next()
    }
  }

  /// Queues `work` to run after the work in progress on this thread. Only inside ``run(_:)``.
  @usableFromInline
  package func enqueue(_ work: @escaping () -> Void) {
    precondition(isRunning, "Trampoline.enqueue: nothing is running on this thread; run instead")
    pending.append(work)
  }

  @usableFromInline
  func nextQueued() -> (() -> Void)? {
    guard head < pending.count else {
      if head > 0 {
        pending.removeAll(keepingCapacity: pending.capacity <= 1_024)
        head = 0
      }
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

#if !os(Windows)
/// The key of each thread's ``Trampoline``, made once; its destructor releases the trampoline
/// when the thread ends.
private let trampolineKey: pthread_key_t = {
  var key = pthread_key_t()
  #if canImport(Darwin)
  let status = pthread_key_create(&key) { Unmanaged<Trampoline>.fromOpaque($0).release() }
  #else
  let status = pthread_key_create(&key) { pointer in
    if let pointer { Unmanaged<Trampoline>.fromOpaque(pointer).release() }
  }
  #endif
  precondition(status == 0, "Trampoline: pthread_key_create failed with \(status)")
  return key
}()
#endif
