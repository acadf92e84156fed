import SignalOperators
public import StreamCore

/// A relay that broadcasts each accepted value to its current subscribers, and keeps none.
///
/// ```swift
/// let taps = PassthroughRelay<Int>()
/// let cancellable = taps.sink { print("tap", $0) }
/// taps.accept(1)  // tap 1
/// ```
///
/// A `PassthroughSubject<Output, Never>` that can't be completed: subscribers see values only,
/// and a `.finished` when the relay is deinitialised, as in CombineExt. A value accepted while a
/// subscriber has no demand is dropped for that subscriber. Each subscription describes itself as
/// `"PassthroughSubject"`.
///
/// > Thread safety: As `PassthroughSubject`: ``accept(_:)`` from any thread, one delivery at a
/// > time per subscriber, an `accept` from inside a subscriber delivered re-entrantly.
public final class PassthroughRelay<Output>: Relay, Sendable {
  public typealias Failure = Never

  private let storage = PassthroughSubject<Output, Never>()

  /// Creates a relay with no subscribers.
  ///
  /// ```swift
  /// let events = PassthroughRelay<String>()
  /// ```
  ///
  /// > Thread safety: The relay may be shared across threads once created.
  public init() {}

  deinit {
    storage.send(completion: .finished)
  }

  /// Sends `value` to each subscriber that has demand for it.
  ///
  /// ```swift
  /// relay.accept(3)
  /// ```
  ///
  /// > Thread safety: Safe from any thread; see the type's discussion.
  ///
  /// - Parameter value: The value to relay.
  public func accept(_ value: Output) {
    storage.send(value)
  }

  /// Feeds the values of `publisher` into this relay until the returned token is cancelled or
  /// `publisher` completes; the completion does not end the relay.
  ///
  /// ```swift
  /// let cancellable = relay.subscribe([1, 2].publisher)  // relays 1, then 2
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

  /// Feeds this relay's values into `relay` until the returned token is cancelled.
  ///
  /// ```swift
  /// let input = PassthroughRelay<Int>()
  /// let output = PassthroughRelay<Int>()
  /// let cancellable = input.subscribe(output)
  /// input.accept(1)  // output relays 1
  /// ```
  ///
  /// > Thread safety: Safe from any thread.
  ///
  /// - Parameter relay: The relay that accepts this relay's values.
  /// - Returns: A token that cancels the link.
  public func subscribe<R: Relay>(_ relay: R) -> AnyCancellable where R.Output == Output {
    relay.subscribe(storage.eraseToAnyPublisher())
  }

  /// Attaches a subscriber.
  ///
  /// > Thread safety: Safe from any thread.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    storage.receive(subscriber: subscriber)
  }
}
