import SignalOperators
public import StreamCore

/// A relay that wraps a value and publishes it to each new subscriber and at each change.
///
/// ```swift
/// let volume = CurrentValueRelay(5)
/// let cancellable = volume.sink { print("volume", $0) }  // volume 5
/// volume.accept(7)                                       // volume 7
/// ```
///
/// A `CurrentValueSubject<Output, Never>` that can't be completed: subscribers see the current
/// value on their first demand, then each accepted value, and a `.finished` when the relay is
/// deinitialised, as in CombineExt. A value accepted while a subscriber has no demand is kept for
/// it (only the latest). Each subscription describes itself as `"CurrentValueSubject"`.
///
/// > Thread safety: As `CurrentValueSubject`: ``accept(_:)`` and ``value`` from any thread, one
/// > delivery at a time per subscriber, an `accept` from inside a subscriber delivered
/// > re-entrantly.
public final class CurrentValueRelay<Output>: Relay, Sendable {
  public typealias Failure = Never

  private let storage: CurrentValueSubject<Output, Never>

  /// The latest accepted value, or the initial one.
  ///
  /// > Thread safety: Safe to read from any thread.
  public var value: Output { storage.value }

  /// Creates a relay whose current value is `value`.
  ///
  /// ```swift
  /// let name = CurrentValueRelay("initial")
  /// ```
  ///
  /// > Thread safety: The relay may be shared across threads once created.
  ///
  /// - Parameter value: The initial value.
  public init(_ value: Output) {
    storage = CurrentValueSubject(value)
  }

  deinit {
    storage.send(completion: .finished)
  }

  /// Makes `value` the current value and sends it to the subscribers.
  ///
  /// ```swift
  /// relay.accept(42)
  /// ```
  ///
  /// > Thread safety: Safe from any thread; see the type's discussion.
  ///
  /// - Parameter value: The new value.
  public func accept(_ value: Output) {
    storage.send(value)
  }

  /// Feeds the values of `publisher` into this relay until the returned token is cancelled or
  /// `publisher` completes; the completion does not end the relay.
  ///
  /// ```swift
  /// let cancellable = relay.subscribe([1, 2].publisher)  // value becomes 1, then 2
  /// ```
  ///
  /// `publisher` is asked for `.unlimited` values once one of the relay's subscribers has
  /// demand (at once if one already had), as a subject asks the publishers it is subscribed to:
  /// a value `publisher` sends at once, such as a current value, reaches subscribers that come
  /// after this call. The relay is held weakly: when it goes away, the subscription to
  /// `publisher` is cancelled.
  ///
  /// > Thread safety: Safe from any thread; values are relayed on `publisher`'s thread.
  ///
  /// - Parameter publisher: A publisher that never fails, of the relay's output.
  /// - Returns: A token that cancels the subscription to `publisher`.
  public func subscribe<P: Publisher>(_ publisher: P) -> AnyCancellable
  where P.Output == Output, P.Failure == Never {
    let inlet = RelayInlet(storage)
    publisher.subscribe(inlet)
    return AnyCancellable(inlet)
  }

  /// Feeds this relay's current value and later values into `relay` until the returned token is
  /// cancelled.
  ///
  /// ```swift
  /// let input = CurrentValueRelay(0)
  /// let output = PassthroughRelay<Int>()
  /// let cancellable = input.subscribe(output)
  /// let printer = output.sink { print($0) }  // 0
  /// input.accept(1)                          // 1
  /// ```
  ///
  /// The current value goes to `relay` once one of `relay`'s subscribers has demand (at once if
  /// one already had), so a subscriber that comes after this call still receives it.
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter relay: The relay that accepts this relay's values.
  /// - Returns: A token that cancels the link.
  public func subscribe<R: Relay>(_ relay: R) -> AnyCancellable where R.Output == Output {
    relay.subscribe(storage.eraseToAnyPublisher())
  }

  /// Attaches a subscriber, which receives the current value on its first demand.
  ///
  /// > Thread safety: Safe from any thread.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    storage.receive(subscriber: subscriber)
  }
}
