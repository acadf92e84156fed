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
// Sendable: `action` is guarded by `lock`. A closure action is `Sendable`; a wrapped cancellable
// need not be (`Cancellable` doesn't refine `Sendable`), and is cancelled from whichever thread
// cancels or releases this token, as the threading contract allows (`SendableByContract`).
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
  private enum Action {
    case closure(@Sendable () -> Void)
    case cancellable(SendableByContract<any Cancellable>)
  }

  private let lock = Lock()
  @exclusivity(unchecked) private var action: Action?

  /// Initializes the cancellable object with the given cancel-time closure.
  ///
  /// - Parameter cancel: A closure that ``cancel()`` invokes, at most once.
  public init(_ cancel: @escaping @Sendable () -> Void) {
    action = .closure(cancel)
  }

  /// Initializes the cancellable object with the given cancellable, which ``cancel()`` cancels.
  ///
  /// The cancellable need not be `Sendable`: a `Cancellable`'s `cancel()` may be called from any
  /// thread, so the token cancels it from whichever thread cancels or releases the token.
  ///
  /// - Parameter canceller: The instance to cancel.
  public init<OtherCancellable: Cancellable>(_ canceller: OtherCancellable) {
    action = .cancellable(SendableByContract(canceller))
  }

  deinit {
    run(action)
  }

  /// Cancels the activity, once; later calls do nothing.
  public func cancel() {
    // Moved out, not copied: a copy and a destroy of the action cost about 100 instructions.
    let taken = lock.withLock { action.take() }
    run(taken)
  }

  private func run(_ action: Action?) {
    switch action {
    case .closure(let cancel): cancel()
    case .cancellable(let cancellable): cancellable.wrapped.cancel()
    case nil: break
    }
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
