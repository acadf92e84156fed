#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#elseif os(Windows)
import WinSDK
#endif

/// Identifies the calling thread, so that a subject can tell a re-entrant `send` (the same thread,
/// from inside a subscriber) from a concurrent one (another thread).
@usableFromInline
package struct ThreadID: Equatable, Sendable {
  @usableFromInline
  package let rawValue: UInt

  /// The thread that is running this code.
  @usableFromInline
  package static var current: ThreadID {
    // Bits 0 and 1 stay clear: `ConduitClaim` and `SubjectCore.delivering` keep flags there.
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
