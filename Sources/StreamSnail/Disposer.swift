import PropertyWrappers
import SignalOperators
public import StreamCore

/// Something a ``Disposer`` can hold and dispose of: Snail's `DisposableType`.
///
/// ```swift
/// final class Token: Disposable {
///   func dispose() { print("disposed") }
/// }
/// Token().add(to: disposer)
/// ```
///
/// > Thread safety: A disposer may call `dispose()` on any thread, so conforming types are
/// > `Sendable`.
public protocol Disposable: Sendable {
  /// Releases what this object holds; called by a ``Disposer``.
  func dispose()
}

extension Disposable {
  /// Adds this object to `disposer`, which disposes of it in ``Disposer/disposeAll()`` or when
  /// the disposer is released.
  ///
  /// ```swift
  /// let greeting = Closure { @Sendable in print("hi") }.add(to: disposer)
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter disposer: The disposer that will dispose of this object.
  /// - Returns: This object, so that the call can end a chain.
  @discardableResult
  public func add(to disposer: Disposer) -> Self {
    disposer.add(disposable: self)
    return self
  }
}

extension Cancellable {
  /// Adds this cancellable to `disposer`, which cancels it in ``Disposer/disposeAll()`` or when
  /// the disposer is released: Snail's `Subscriber.add(to:)`.
  ///
  /// ```swift
  /// subject.sink { print($0) }.add(to: disposer)
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter disposer: The disposer that keeps and later cancels this cancellable.
  public func add(to disposer: Disposer) {
    disposer.add(cancellable: self)
  }
}

/// A bag that keeps subscriptions and other disposables alive and ends them all at once.
///
/// ```swift
/// final class ProfileViewController {
///   private let disposer = Disposer()
///   func bind(_ name: ReplaySubject<String, Never>) {
///     name.sink { print($0) }.add(to: disposer)
///   }
/// }
/// ```
///
/// ``disposeAll()`` cancels each cancellable and disposes of each ``Disposable``, in the order
/// they were added, exactly once, and empties the bag; the disposer stays usable, so entries
/// added afterwards are kept until the next `disposeAll()` (Snail's behaviour, used to rebind
/// reused views). Releasing the disposer disposes of everything it still holds. A disposer does
/// not break retain cycles: capture `self` weakly in the closures of the subscriptions it keeps.
///
/// > Thread safety: `add` and `disposeAll()` may be called from any thread, also from inside
/// > a `dispose()` or `cancel()` that a `disposeAll()` runs; entries are cancelled after the
/// > disposer's lock is released, on the thread that disposes.
// Sendable: `entries` is only reached under `lock`; entries are Sendable.
public final class Disposer: @unchecked Sendable {
  private enum Entry {
    case disposable(any Disposable)
    case cancellable(any Cancellable)

    func end() {
      switch self {
      case .disposable(let disposable): disposable.dispose()
      case .cancellable(let cancellable): cancellable.cancel()
      }
    }
  }

  private let lock = Lock()
  private var entries: [Entry] = []

  /// Creates an empty disposer.
  public init() {}

  deinit {
    for entry in entries {
      entry.end()
    }
  }

  /// Keeps `disposable` until ``disposeAll()`` or until the disposer is released.
  ///
  /// ```swift
  /// disposer.add(disposable: Closure { @Sendable in refresh() })
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter disposable: What to dispose of later.
  public func add(disposable: any Disposable) {
    lock.withLock { entries.append(.disposable(disposable)) }
  }

  package func add(cancellable: any Cancellable) {
    lock.withLock { entries.append(.cancellable(cancellable)) }
  }

  /// Disposes of everything the disposer holds, in the order it was added, and empties it.
  ///
  /// ```swift
  /// override func prepareForReuse() {
  ///   disposer.disposeAll()
  /// }
  /// ```
  ///
  /// > Thread safety: Safe from any thread; each entry is disposed of exactly once, outside the
  /// > disposer's lock, even when several threads call this at once.
  public func disposeAll() {
    let taken = lock.withLock { () -> [Entry] in
      defer { entries = [] }
      return entries
    }
    for entry in taken {
      entry.end()
    }
  }
}
