import Dispatch
import PropertyWrappers
import SignalOperators
import StreamCore

/// A message source you fire by hand, whose ``fired`` publisher sends each message to its
/// subscribers (SwiftySignals' `Signal`).
///
/// ```swift
/// let signal = Signal<Int>()
/// signal.fire(with: 20)
/// let observables = ObservableCollection()
/// signal.fired.then { print($0) }.append(to: observables)  // prints 20 (replayed), on main
/// signal.fire(21)                                          // then prints 21, on main
/// ```
///
/// As in SwiftySignals, ``fired`` delivers on the main queue by default, asynchronously, so the
/// closures of `then`, `filter` and `map` after it run on the main queue; `dispatch(to:)`,
/// `dispatch(qos:)`, `noDispatch()` and `onFiringThread()` on ``EndPoint`` choose otherwise.
///
/// Replay is explicit: with `replaysLast: true` (the default, as in SwiftySignals) each new
/// subscriber first gets the last message fired, if any; with `false` it gets only later ones.
/// Use `discard(first: 1)` to skip a replay. Demand is honoured per subscriber as a
/// `CurrentValueSubject` (replaying) or a `PassthroughSubject` does. There is no failure;
/// releasing the signal finishes every subscriber.
///
/// Messages are sent one at a time, in firing order: a message fired while another is being
/// sent (from inside a subscriber, or from another thread) is queued and sent right after, by
/// the thread already sending, as SwiftySignals queues every message. So every subscriber sees
/// the messages in the same order.
///
/// > Thread safety: `fire` and subscribing are safe from any thread; `fire` never waits for a
/// > delivery under way.
public final class Signal<Message>: Sendable {
  /// Whether a new subscriber first gets the last message fired.
  public let replaysLast: Bool

  private let replaying: CurrentValueSubject<Fired?, Never>?
  private let passthrough: PassthroughSubject<Message, Never>?

  /// A fired message, so that a nil `Message` is told apart from "nothing fired yet".
  private struct Fired {
    let message: Message
  }

  /// Messages fired while another is being sent, oldest first, and who sends them.
  private struct Sending {
    var pending = RingBuffer<Message>()
    var drain = SerialDrain()
  }

  private let sending = LockedState(Sending())

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

  /// SwiftySignals' README spells `Signal<Int>(value: 15)`, an initialiser that SwiftySignals
  /// never had; write `Signal<T>()`, then `fire(with:)` the first message.
  ///
  /// ```swift
  /// let signal = Signal<Int>()
  /// signal.fire(with: 15)  // replayed to each new subscriber
  /// ```
  ///
  /// > Thread safety: Not callable.
  ///
  /// - Parameter value: The message the README meant to start with.
  @available(
    *,
    unavailable,
    message:
      "SwiftySignals' Signal has no init(value:); write Signal<T>() and fire(with:) the value"
  )
  public convenience init(value: Message) {
    self.init()
    fire(with: value)
  }

  deinit {
    replaying?.send(completion: .finished)
    passthrough?.send(completion: .finished)
  }

  /// The publisher of fired messages (SwiftySignals' endpoint `fired`), delivering on the main
  /// queue.
  ///
  /// ```swift
  /// let cancellable = signal.fired.sink { print($0) }  // on the main queue
  /// ```
  ///
  /// Every message, the replayed one included, reaches a subscriber asynchronously on the main
  /// queue, as in SwiftySignals; see ``EndPoint`` for the other queues.
  ///
  /// > Thread safety: Safe to read and subscribe to from any thread.
  public var fired: EndPoint<Message> {
    let upstream: AnyPublisher<Message, Never>
    if let replaying {
      upstream = replaying.compactMap { $0?.message }.eraseToAnyPublisher()
    } else {
      upstream = passthrough!.eraseToAnyPublisher()
    }
    return EndPoint(upstream: upstream, queue: .main)
  }

  /// Sends `message` to every subscriber of ``fired``, and keeps it for replay if the signal
  /// replays.
  ///
  /// ```swift
  /// signal.fire(with: 42)
  /// ```
  ///
  /// If another message is being sent, this one is queued behind it and `fire` returns at
  /// once; the thread already sending sends it next. Otherwise this thread sends it, and then
  /// whatever was fired meanwhile.
  ///
  /// > Thread safety: Safe from any thread, with no lock held while sending, so subscribers may
  /// > fire again (their messages are queued, not delivered re-entrantly).
  ///
  /// - Parameter message: The message to send.
  public func fire(with message: Message) {
    let claimed = sending.withLock { sending in
      guard sending.drain.claim() else {
        sending.pending.append(message)
        return false
      }
      return true
    }
    guard claimed else { return }
    send(message)
    while let next = sending.withLock({ sending in nextToSend(&sending) }) {
      send(next.message)
    }
  }

  /// The next queued message, or `nil` after releasing the drain.
  private func nextToSend(_ sending: inout Sending) -> Fired? {
    guard let next = sending.pending.popFirst() else {
      sending.drain.release()
      return nil
    }
    return Fired(message: next)
  }

  /// Sends `message` to the subject, on the calling thread.
  private func send(_ message: Message) {
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
