import FutureKit
public import StreamCore

/// A stream is a StreamCore `Publisher` of its states, so every StreamCore and SignalOperators
/// operator applies.
///
/// ```swift
/// let token = publisher.subscriber()
///   .sink { state in print(state) }  // Data: 1, Error: …, Cancelled.
/// ```
///
/// - Each state is a value; `.error` is just a value, and `.cancelled` is the last value,
///   followed by `.finished`. `Failure` is `Never`.
/// - Demand is honoured. A plain stream drops states that arrive while the subscriber has no
///   demand, like `PassthroughSubject`. A stateful stream keeps the latest such state and
///   delivers it on the next request, like `CurrentValueSubject`; a new subscriber receives the
///   replayed state on its first request. When the stream is cancelled, `.cancelled` is
///   delivered if there is demand for it, and `.finished` in any case.
/// - The subscription keeps the stream alive until it is cancelled or finished.
/// - ``valuePublisher`` publishes only the values; ``valuePublisherFailingOnError`` fails at
///   the first error.
///
/// > Thread safety: Values are delivered on the thread that publishes the state, or on the
/// > thread that calls `request(_:)` for a kept state; one at a time. `request(_:)` and
/// > `cancel()` may be called from any thread.
extension StreamSubscriber: Publisher {
  /// Each state, `.cancelled` last.
  public typealias Output = StreamState<T, E>

  /// A stream doesn't fail: errors are states.
  public typealias Failure = Never

  /// Attaches `subscriber`, which receives the states published from now on.
  ///
  /// - Parameter subscriber: The subscriber to attach.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == StreamState<T, E>, S.Failure == Never {
    StreamViewSubscription.attach(subscriber, to: self) { state in
      if case .cancelled = state {
        .end(last: .cancelled, .finished)
      } else {
        .send(state)
      }
    }
  }

  /// A publisher of this stream's values: errors are skipped, and cancellation finishes it.
  ///
  /// ```swift
  /// let token = subscriber.valuePublisher.sink { print("value", $0) }
  /// ```
  public var valuePublisher: ValuePublisher {
    ValuePublisher(stream: self)
  }

  /// A publisher of this stream's values that fails with the first error and finishes on
  /// cancellation, for code that expects Combine's terminal errors.
  ///
  /// ```swift
  /// let token = subscriber.valuePublisherFailingOnError.sink(
  ///   receiveCompletion: { print($0) },
  ///   receiveValue: { print("value", $0) }
  /// )
  /// ```
  public var valuePublisherFailingOnError: ValuePublisherFailingOnError {
    ValuePublisherFailingOnError(stream: self)
  }

  /// Publishes a stream's values; see ``StreamSubscriber/valuePublisher``.
  ///
  /// ```swift
  /// let token = temperatures.valuePublisher.sink { print("now \($0)°") }
  /// ```
  ///
  /// Errors are skipped; the subscription finishes when the stream is cancelled.
  ///
  /// > Thread safety: `subscribe` may be called from any thread. Values arrive on the publishing
  /// > thread, one at a time; `request(_:)` and `cancel()` are safe from any thread.
  public struct ValuePublisher: Publisher, Sendable {
    /// The stream's values.
    public typealias Output = T

    /// It finishes when the stream is cancelled and never fails.
    public typealias Failure = Never

    /// The stream it follows.
    public let stream: StreamSubscriber<T, E>

    /// Attaches `subscriber`, which receives the values published from now on.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == T, S.Failure == Never {
      StreamViewSubscription.attach(subscriber, to: stream) { state in
        switch state {
        case .data(let value): .send(value)
        case .error: .skip
        case .cancelled: .end(last: nil, .finished)
        }
      }
    }
  }

  /// Publishes a stream's values until its first error; see
  /// ``StreamSubscriber/valuePublisherFailingOnError``.
  ///
  /// ```swift
  /// let token = downloads.valuePublisherFailingOnError.sink(
  ///   receiveCompletion: { print($0) },  // .failure at the stream's first error
  ///   receiveValue: { print($0) }
  /// )
  /// ```
  ///
  /// > Thread safety: `subscribe` may be called from any thread. Values arrive on the publishing
  /// > thread, one at a time; `request(_:)` and `cancel()` are safe from any thread.
  public struct ValuePublisherFailingOnError: Publisher, Sendable {
    /// The stream's values.
    public typealias Output = T

    /// The stream's first error ends the subscription.
    public typealias Failure = E

    /// The stream it follows.
    public let stream: StreamSubscriber<T, E>

    /// Attaches `subscriber`, which receives the values published from now on.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == T, S.Failure == E {
      StreamViewSubscription.attach(subscriber, to: stream) { state in
        switch state {
        case .data(let value): .send(value)
        case .error(let error): .end(last: nil, .failure(error))
        case .cancelled: .end(last: nil, .finished)
        }
      }
    }
  }
}
