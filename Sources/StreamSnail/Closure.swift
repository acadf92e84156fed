import PropertyWrappers
import SignalOperators
import StreamCore

/// A closure holder that a ``Disposer`` empties: Snail's `Closure`.
///
/// ```swift
/// let onTap = Closure { @Sendable in print("tapped") }.add(to: disposer)
/// onTap.closure?()        // prints "tapped"
/// disposer.disposeAll()
/// onTap.closure == nil    // true: the closure and what it captured are released
/// ```
///
/// ``dispose()`` releases the closure, not the holder: references to the `Closure` stay valid
/// and read `nil` from then on.
///
/// > Thread safety: `closure` and ``dispose()`` may be used from any thread; the closure type
/// > must be `Sendable` (write `@Sendable` or use a `@MainActor` closure).
// Sendable: `stored` is only reached under `lock`, and `T` is Sendable.
public final class Closure<T: Sendable>: Disposable, @unchecked Sendable {
  private let lock = Lock()
  private var stored: T?

  /// Wraps `closure`.
  ///
  /// - Parameter closure: The closure to hold until ``dispose()``.
  public init(_ closure: T) {
    stored = closure
  }

  /// The closure, or `nil` once disposed of.
  public var closure: T? {
    lock.withLock { stored }
  }

  /// Releases the closure; later reads of ``closure`` return `nil`.
  ///
  /// > Thread safety: Safe from any thread; the closure is released after the lock.
  public func dispose() {
    let released = lock.withLock { () -> T? in
      defer { stored = nil }
      return stored
    }
    _ = released
  }
}
