// Public: `current` is inlinable, so that a subject's send specialised in a client module reads
// the thread without a call.
#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Bionic)
public import Bionic
#elseif canImport(Darwin)
public import Darwin
#elseif os(Windows)
public import WinSDK
#endif

/// Identifies the calling thread, so that a subject can tell a re-entrant `send` (the same thread,
/// from inside a subscriber) from a concurrent one (another thread).
@usableFromInline
package struct ThreadID: Equatable, Sendable {
  @usableFromInline
  package let rawValue: UInt

  @inlinable
  package init(rawValue: UInt) {
    self.rawValue = rawValue
  }

  /// The thread that is running this code.
  @inlinable
  package static var current: ThreadID {
    // Bits 0 and 1 stay clear (a pointer or a shifted id): an atomic word may keep flags there.
    #if os(Windows)
    // A thread id is a number, multiple of 4 in practice but not by contract: shifted.
    ThreadID(rawValue: UInt(GetCurrentThreadId()) << 2)
    #elseif canImport(Darwin)
    ThreadID(rawValue: UInt(bitPattern: pthread_self()))
    #else
    ThreadID(rawValue: UInt(pthread_self()))
    #endif
  }
}
