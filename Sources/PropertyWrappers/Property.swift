public import StreamCore

/// A thread-safe value whose assignments are published through ``didSet``.
///
/// ```swift
/// let volume = Property(value: 5)
/// var cancellables = Set<AnyCancellable>()
/// volume.didSet
///   .sink { print("volume", $0) }  // prints "volume 5"
///   .store(in: &cancellables)
/// volume.value = 7                 // prints "volume 7"
/// ```
///
/// SwiftySignals' `Property`, on a StreamCore `CurrentValueSubject`:
///
/// - ``didSet`` replays the current value to each new subscriber, then sends every assignment,
///   equal values included, as SwiftySignals sends the last message to each new observer.
/// - Reading ``value`` right after assigning it returns the new value.
/// - Values are delivered synchronously, on the assigning thread, one at a time and in the order
///   they were assigned (see ``Variable`` for how a value assigned during a delivery is queued).
///   SwiftySignals instead hops to the main queue by default; add a `receive(on:)` from
///   SignalOperators where that is wanted.
/// - When the property is deinitialised, its subscribers receive `.finished`, where SwiftySignals
///   unsubscribes its observers.
/// - `value += 1` is a read and a separate write, as in SwiftySignals; ``modify(_:)`` is atomic.
///
/// > Thread safety: ``value`` may be read and assigned from any thread; reading never waits for
/// > a delivery. A property is `Sendable` when `T` is.
public final class Property<T> {
  private let cell: ValueCell<T>

  /// Creates a property holding `value`.
  ///
  /// - Parameter value: The initial value, which each new subscriber receives first.
  public init(value: T) {
    cell = ValueCell(value)
  }

  deinit {
    cell.finish()
  }

  /// The current value; assigning sends it through ``didSet``.
  public var value: T {
    get { cell.latest }
    set { cell.set(newValue) }
  }

  /// Publishes the current value to each new subscriber, then every assigned value.
  ///
  /// ```swift
  /// let token = property.didSet.sink { print("value changed to", $0) }
  /// ```
  ///
  /// To skip the replayed current value, SwiftySignals' `discard(first: 1)`, use
  /// `dropFirst()` from SignalOperators. The publisher finishes when the property is
  /// deinitialised; it does not keep the property alive.
  public var didSet: AnyPublisher<T, Never> {
    cell.subject.eraseToAnyPublisher()
  }

  /// Changes the value in place, atomically with respect to other assignments.
  ///
  /// ```swift
  /// let count = Property(value: 0)
  /// count.modify { $0 += 1 }
  /// ```
  ///
  /// `body` runs outside any lock. If another thread assigns the value while `body` runs,
  /// `body` runs again on the newer value, so it should have no side effects. The result is
  /// sent like an assignment.
  ///
  /// - Parameter body: Changes the value it is given.
  public func modify(_ body: (inout T) throws -> Void) rethrows {
    try cell.modify(body, unless: nil)
  }
}

extension Property: Sendable where T: Sendable {}
