public import StreamCore

/// A message source you fire by hand, whose ``fired`` publisher sends each message to its
/// subscribers (SwiftySignals' `Signal`).
///
/// ```swift
/// let signal = Signal<Int>()
/// signal.fire(with: 20)
/// let cancellable = signal.fired.then { print($0) }.sink { _ in }  // prints 20 (replayed)
/// signal.fire(21)                                                   // prints 21
/// ```
///
/// Replay is explicit: with `replaysLast: true` (the default, as in SwiftySignals) each new
/// subscriber first gets the last message fired, if any; with `false` it gets only later ones.
/// Use `discard(first: 1)` to skip a replay. Messages are delivered synchronously on the firing
/// thread, with demand honoured per subscriber as a `CurrentValueSubject` (replaying) or a
/// `PassthroughSubject` does. There is no failure; releasing the signal finishes every
/// subscriber.
///
/// > Thread safety: `fire` and subscribing are safe from any thread; fire from one thread at a
/// > time to keep an order.
public final class Signal<Message>: Sendable {
  /// Whether a new subscriber first gets the last message fired.
  public let replaysLast: Bool

  private let replaying: CurrentValueSubject<Fired?, Never>?
  private let passthrough: PassthroughSubject<Message, Never>?

  /// A fired message, so that a nil `Message` is told apart from "nothing fired yet".
  private struct Fired {
    let message: Message
  }

  /// Creates a signal.
  ///
  /// ```swift
  /// let clicks = Signal<Void>(replaysLast: false)
  /// ```
  ///
  /// > Thread safety: The new signal may be used from any thread.
  ///
  /// - Parameter replaysLast: Whether each new subscriber first gets the last message fired.
  public init(replaysLast: Bool = true) {
    self.replaysLast = replaysLast
    if replaysLast {
      replaying = CurrentValueSubject(nil)
      passthrough = nil
    } else {
      replaying = nil
      passthrough = PassthroughSubject()
    }
  }

  deinit {
    replaying?.send(completion: .finished)
    passthrough?.send(completion: .finished)
  }

  /// The publisher of fired messages (SwiftySignals' endpoint `fired`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.sink { print($0) }
  /// ```
  ///
  /// > Thread safety: Safe to read and subscribe to from any thread.
  public var fired: AnyPublisher<Message, Never> {
    if let replaying {
      return replaying.compactMap { $0?.message }.eraseToAnyPublisher()
    }
    return passthrough!.eraseToAnyPublisher()
  }

  /// Sends `message` to every subscriber of ``fired``, and keeps it for replay if the signal
  /// replays.
  ///
  /// ```swift
  /// signal.fire(with: 42)
  /// ```
  ///
  /// > Thread safety: Safe from any thread; subscribers run on the calling thread, with no lock
  /// > held, so they may fire again.
  ///
  /// - Parameter message: The message to send.
  public func fire(with message: Message) {
    if let replaying {
      replaying.send(Fired(message: message))
    } else {
      passthrough?.send(message)
    }
  }

  /// Sends `message`; the same as ``fire(with:)``.
  ///
  /// ```swift
  /// signal.fire(42)
  /// ```
  ///
  /// > Thread safety: As ``fire(with:)``.
  ///
  /// - Parameter message: The message to send.
  public func fire(_ message: Message) {
    fire(with: message)
  }
}
