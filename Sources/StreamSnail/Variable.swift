import PropertyWrappers
import SignalOperators
public import StreamCore

/// A value that publishes every assignment, replaying its current value to each new subscriber.
///
/// ```swift
/// let name = Variable("Ada")
/// let token = name.asObservable().sink { print("name:", $0) }  // prints "name: Ada"
/// name.value = "Grace"                                         // prints "name: Grace"
/// name.value = "Grace"                                         // prints "name: Grace" again
/// ```
///
/// Snail's `Variable`, on a StreamCore `CurrentValueSubject`:
///
/// - ``asObservable()`` replays the current value to each new subscriber, synchronously on its
///   first demand, then sends every assignment. Assigning an equal value sends it again; use
///   ``Unique`` to send only changes.
/// - Reading ``value`` right after assigning it returns the new value, even while that value is
///   still being delivered.
/// - Values reach subscribers one at a time, in the order they were assigned. A value assigned
///   from inside a subscriber, or from another thread while a delivery is under way, is queued,
///   and the thread already delivering sends it as soon as the current value has reached every
///   subscriber. So every subscriber sees the same sequence, and the last value each one receives
///   is ``value``. (Snail delivers a nested assignment re-entrantly instead.)
/// - When the variable is deinitialised, its subscribers receive `.finished`, Snail's `.done`. A
///   subscriber that arrives after that receives only the completion.
/// - Unlike Snail's operators, which lose a variable's initial value (Snail issue #164), StreamCore
///   subscribes lazily and by demand: `variable.asObservable().map { … }` from SignalOperators
///   delivers the current value to each of its subscribers.
///
/// > Thread safety: ``value`` may be read and assigned from any thread. Values are delivered on
/// > the assigning thread, or on the thread already delivering when one is under way. A variable
/// > is `Sendable` when `T` is.
public class Variable<T> {
  let cell: ValueCell<T>

  /// Creates a variable holding `value`.
  ///
  /// - Parameter value: The initial value, which each new subscriber receives first.
  public init(_ value: T) {
    cell = ValueCell(value)
  }

  deinit {
    cell.finish()
  }

  /// The current value; assigning sends it to the subscribers, even if it is equal to the old one.
  public var value: T {
    get { cell.latest }
    set { store(newValue) }
  }

  /// Assigns the value; ``Unique`` overrides it to skip equal values.
  func store(_ newValue: T) {
    cell.set(newValue)
  }

  /// Changes the value in place, atomically with respect to other assignments.
  ///
  /// ```swift
  /// let count = Variable(0)
  /// DispatchQueue.concurrentPerform(iterations: 100) { _ in count.modify { $0 += 1 } }
  /// // count.value == 100; `count.value += 1` could lose increments
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

  /// Returns a publisher of the value: the current value first, then every assignment.
  ///
  /// ```swift
  /// let isLoading = Variable(false)
  /// let token = isLoading.asObservable().sink { spinner.isHidden = !$0 }
  /// ```
  ///
  /// The publisher finishes when the variable is deinitialised. It holds the variable's subject,
  /// not the variable, so it does not keep the variable alive.
  ///
  /// - Returns: A publisher that replays the current value to each new subscriber.
  public func asObservable() -> AnyPublisher<T, Never> {
    cell.subject.eraseToAnyPublisher()
  }

  /// Makes this variable follow `other`: it takes `other`'s current value at once, then each of
  /// its values.
  ///
  /// ```swift
  /// let isSpinnerAnimating = Variable(false)
  /// isSpinnerAnimating.bind(to: viewModel.isLoading)  // follows isLoading from now on
  /// viewModel.isLoading.value = true
  /// isSpinnerAnimating.value  // true
  /// ```
  ///
  /// As in Snail, the receiver follows the argument. The binding lives as long as this variable
  /// (the follower), so the result may be ignored, as in Snail's README; cancel it to end the
  /// binding sooner. The binding holds this variable weakly, and `other` does not keep it alive.
  /// Binding two plain variables to each other sends values back and forth forever; bind
  /// ``Unique`` variables for a two-way binding, since they stop at an equal value.
  ///
  /// - Parameter other: The variable to follow; it must not be this variable.
  /// - Returns: A token that ends the binding when cancelled.
  @discardableResult
  public func bind(to other: Variable<T>) -> any Cancellable {
    precondition(other !== self, "a Variable cannot be bound to itself")
    let sink = Subscribers.Sink<T, Never>(
      receiveCompletion: { _ in },
      receiveValue: { [weak self] value in self?.value = value }
    )
    cell.retain(sink)
    other.cell.subject.subscribe(sink)
    return sink
  }

  /// Returns a variable that holds `transform` applied to this variable's value, and follows it.
  ///
  /// ```swift
  /// let count = Variable(1)
  /// let label = count.map { "\($0) items" }
  /// count.value = 2
  /// label.value  // "2 items"
  /// ```
  ///
  /// `transform` runs once for the current value, then once for each value this variable sends
  /// (an equal value included, unless this is a ``Unique``). As in Snail, the link lives as long
  /// as this variable, the source, whether or not the result is kept, and the result is a plain
  /// `Variable`, which sends every value it is given.
  ///
  /// - Parameter transform: Converts a value of this variable.
  /// - Returns: A variable holding the transformed value.
  public func map<U>(_ transform: @escaping (T) -> U) -> Variable<U> {
    var mapped: Variable<U>?
    let sink = Subscribers.Sink<T, Never>(
      receiveCompletion: { _ in },
      receiveValue: { value in
        if let mapped {
          mapped.value = transform(value)
        } else {
          mapped = Variable<U>(transform(value))
        }
      }
    )
    cell.retain(sink)
    cell.subject.subscribe(sink)  // the subject replays the current value synchronously
    guard let mapped else {
      preconditionFailure("Variable.map: the source did not replay its current value")
    }
    return mapped
  }
}

// Sendable: all state is in `cell`, which guards it with a lock.
extension Variable: @unchecked Sendable where T: Sendable {}

/// A ``Variable`` that sends a value only when it differs from the current one.
///
/// ```swift
/// let status = Unique("idle")
/// let token = status.asObservable().sink { print($0) }  // prints "idle"
/// status.value = "idle"                                 // prints nothing
/// status.value = "busy"                                 // prints "busy"
/// ```
///
/// Snail's `Unique`. The comparison with the current value and the assignment are one atomic
/// step: `==` runs outside the lock, and if another thread assigned the value meanwhile, the
/// comparison is made again with the newer value. ``Variable/modify(_:)`` skips equal results
/// too. A new subscriber receives the current value once.
///
/// > Thread safety: As ``Variable``.
public final class Unique<T: Equatable>: Variable<T> {
  /// Creates a unique variable holding `value`.
  ///
  /// - Parameter value: The initial value, which each new subscriber receives first.
  public override init(_ value: T) {
    super.init(value)
  }

  override func store(_ newValue: T) {
    cell.modify({ $0 = newValue }, unless: ==)
  }

  /// Changes the value in place, atomically, and sends the result only if it differs.
  ///
  /// - Parameter body: Changes the value it is given; it may run more than once.
  public override func modify(_ body: (inout T) throws -> Void) rethrows {
    try cell.modify(body, unless: ==)
  }
}

// Sendable: all state is in `cell`, which guards it with a lock.
extension Unique: @unchecked Sendable where T: Sendable {}
