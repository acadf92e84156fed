/// A type-erasing cancellable object that executes a provided closure when cancelled.
///
/// ```swift
/// var cancellables = Set<AnyCancellable>()
/// subject.sink { print($0) }.store(in: &cancellables)
/// ```
///
/// An `AnyCancellable` cancels automatically when it is deinitialised, so a subscription lives
/// as long as its token. The cancel action runs at most once, after which the token releases it.
///
/// > Thread safety: ``cancel()`` may be called from any thread, any number of times.
// Sendable: `action` is guarded by `lock`. It is typed without `@Sendable` only so that the
// generic initialiser's closure may capture the cancellable's type (`Cancellable` doesn't refine
// `SendableMetatype`): a closure given to `init(_:)` is `@Sendable`, and a wrapped cancellable,
// which need not be `Sendable`, is cancelled from whichever thread cancels or releases this
// token, as the threading contract allows (`SendableByContract`).
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
  @usableFromInline
  let lock = Lock()

  /// What ``cancel()`` runs, taken out (under the lock) by the call that runs it.
  ///
  /// One closure for both initialisers: a wrapped cancellable is captured by a closure, whose
  /// context is then the cancellable object itself (no allocation for a class), so copying and
  /// destroying the action is a retain and a release. An enum holding an existential went
  /// through value witnesses for every copy and destroy.
  @usableFromInline
  @exclusivity(unchecked) var action: (() -> Void)?

  /// Initializes the cancellable object with the given cancel-time closure.
  ///
  /// > Thread safety: The closure runs on the thread that cancels or releases the token.
  ///
  /// - Parameter cancel: A closure that ``cancel()`` invokes, at most once.
  @inlinable
  public init(_ cancel: @escaping @Sendable () -> Void) {
    action = cancel
  }

  /// Initializes the cancellable object with the given cancellable, which ``cancel()`` cancels.
  ///
  /// The cancellable need not be `Sendable`: a `Cancellable`'s `cancel()` may be called from any
  /// thread, so the token cancels it from whichever thread cancels or releases the token.
  ///
  /// > Thread safety: `canceller` is cancelled on the thread that cancels or releases the token.
  ///
  /// - Parameter canceller: The instance to cancel.
  @inlinable
  public init<OtherCancellable: Cancellable>(_ canceller: OtherCancellable) {
    let target = SendableByContract(canceller)
    action = { target.wrapped.cancel() }
  }

  deinit {
    action?()
  }

  /// Cancels the activity, once; later calls do nothing.
  ///
  /// > Thread safety: May be called from any thread, any number of times; the action runs once.
  @inlinable
  public func cancel() {
    // Moved out, not copied: the action is released by this call, outside the lock.
    let taken = lock.withLock { action.take() }
    taken?()
  }

  /// Stores this instance in the specified set.
  ///
  /// - Parameter set: The set in which to store this ``AnyCancellable``.
  public func store(in set: inout Set<AnyCancellable>) {
    set.insert(self)
  }

  /// Stores this instance in the specified collection.
  ///
  /// - Parameter collection: The collection in which to store this ``AnyCancellable``.
  public func store<C: RangeReplaceableCollection>(in collection: inout C)
  where C.Element == AnyCancellable {
    collection.append(self)
  }

  /// Identity equality: two tokens are equal only if they are the same object.
  public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
    lhs === rhs
  }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}
