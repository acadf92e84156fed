public import Dispatch
import PropertyWrappers
import SignalOperators
public import StreamCore

/// A thread-safe value whose assignments are published through ``didSet``.
///
/// ```swift
/// let volume = Property(value: 5)
/// var cancellables = Set<AnyCancellable>()
/// volume.didSet
///   .sink { print("volume", $0) }  // prints "volume 5", on the main queue
///   .store(in: &cancellables)
/// volume.value = 7                 // then prints "volume 7", on the main queue
/// ```
///
/// SwiftySignals' `Property`, on a StreamCore `CurrentValueSubject`:
///
/// - ``didSet`` replays the current value to each new subscriber, then sends every assignment,
///   equal values included, as SwiftySignals sends the last message to each new observer.
/// - Reading ``value`` right after assigning it returns the new value.
/// - As in SwiftySignals, ``didSet`` delivers on the main queue by default, always
///   asynchronously, so the closures of `then`, `filter` and `map` after it run there; its
///   ``PropertyEndPoint/dispatch(to:)``, ``PropertyEndPoint/dispatch(qos:)`` and
///   ``PropertyEndPoint/noDispatch()`` choose another queue, and
///   ``PropertyEndPoint/onAssigningThread()`` delivers synchronously on the assigning thread.
///   Values are sent one at a time and in the order they were assigned (see `Variable` for
///   how a value assigned during a delivery is queued), and keep that order on every queue.
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

  /// Publishes the current value to each new subscriber, then every assigned value, on the main
  /// queue (SwiftySignals' endpoint `didSet`).
  ///
  /// ```swift
  /// let token = property.didSet.sink { print("value changed to", $0) }  // on the main queue
  /// ```
  ///
  /// To skip the replayed current value, SwiftySignals' `discard(first: 1)`, use
  /// `dropFirst()` from SignalOperators. The publisher finishes when the property is
  /// deinitialised; it does not keep the property alive.
  public var didSet: PropertyEndPoint<T> {
    PropertyEndPoint(subject: cell.subject, queue: .main)
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

/// The publisher a ``Property`` hands out as ``Property/didSet``, with the dispatch queue its
/// subscribers receive the values on (SwiftySignals' `EndPoint`).
///
/// ```swift
/// let volume = Property(value: 5)
/// let token = volume.didSet
///   .dispatch(qos: .utility)  // a new private serial queue instead of the main queue
///   .sink { print("volume", $0) }
/// ```
///
/// The main queue by default, always asynchronously, as in SwiftySignals. Each of
/// ``dispatch(to:)``, ``dispatch(qos:)``, ``noDispatch()`` and ``onAssigningThread()`` replaces
/// the queue rather than adding a second hop. Values keep their order on every queue; on Linux
/// the main queue runs only while the program services it (`dispatchMain()`, an async `main`,
/// or a main-actor task).
///
/// > Thread safety: Subscribe from any thread; values are delivered on ``queue``, one at a time,
/// > or on the assigning thread when ``queue`` is `nil`.
public struct PropertyEndPoint<Value>: Publisher {
  public typealias Output = Value
  public typealias Failure = Never

  private let subject: CurrentValueSubject<Value, Never>

  /// Where subscribers receive the values; `nil` means synchronously on the assigning thread.
  public let queue: DispatchQueue?

  init(subject: CurrentValueSubject<Value, Never>, queue: DispatchQueue?) {
    self.subject = subject
    self.queue = queue
  }

  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Value, S.Failure == Never {
    if let queue {
      subject.subscribe(QueueHop(subscriber, queue: queue))
    } else {
      subject.subscribe(subscriber)
    }
  }

  /// The same values, delivered asynchronously on `queue` instead (SwiftySignals'
  /// `dispatch(to:)`).
  ///
  /// ```swift
  /// let token = property.didSet.dispatch(to: worker).sink { process($0) }
  /// ```
  ///
  /// > Thread safety: Subscribers receive the values on `queue`, one at a time.
  ///
  /// - Parameter queue: The queue to deliver on.
  /// - Returns: An end point that delivers on `queue`.
  public func dispatch(to queue: DispatchQueue) -> PropertyEndPoint {
    PropertyEndPoint(subject: subject, queue: queue)
  }

  /// The same values, delivered on a new private serial queue with the given quality of
  /// service (SwiftySignals' `dispatch(qos:)`).
  ///
  /// ```swift
  /// let token = property.didSet.dispatch(qos: .utility).sink { save($0) }
  /// ```
  ///
  /// > Thread safety: Subscribers receive the values on the new queue, one at a time.
  ///
  /// - Parameter qos: The quality of service of the new queue.
  /// - Returns: An end point that delivers on the new queue.
  public func dispatch(qos: DispatchQoS = .default) -> PropertyEndPoint {
    PropertyEndPoint(subject: subject, queue: DispatchQueue(label: "StreamKit.dispatch", qos: qos))
  }

  /// The same values, delivered on a new private serial queue, never the main queue
  /// (SwiftySignals' `noDispatch()`).
  ///
  /// ```swift
  /// let token = property.didSet.noDispatch().sink { log($0) }
  /// ```
  ///
  /// > Thread safety: Subscribers receive the values on the new queue, one at a time.
  ///
  /// - Returns: An end point that delivers on a new private serial queue.
  public func noDispatch() -> PropertyEndPoint {
    PropertyEndPoint(subject: subject, queue: DispatchQueue(label: "StreamKit.noDispatch"))
  }

  /// The same values, delivered synchronously on the assigning thread (a StreamKit addition;
  /// SwiftySignals always dispatched).
  ///
  /// ```swift
  /// let token = property.didSet.onAssigningThread().sink { print($0) }  // prints the value now
  /// property.value = 1                                                  // prints 1 at once
  /// ```
  ///
  /// > Thread safety: Subscribers receive the values on the assigning thread, or on the thread
  /// > already delivering when one is under way, one at a time.
  ///
  /// - Returns: An end point that delivers on the assigning thread.
  public func onAssigningThread() -> PropertyEndPoint {
    PropertyEndPoint(subject: subject, queue: nil)
  }
}

extension PropertyEndPoint: Sendable where Value: Sendable {}
