extension Optional {
  /// A publisher that publishes this optional's value, if any, then finishes.
  ///
  /// ```swift
  /// let name: String? = "Ada"
  /// let cancellable = name.publisher.sink { print($0) }  // prints "Ada"
  /// ```
  public var publisher: Publisher {
    Publisher(self)
  }

  /// A publisher that publishes an optional value to each subscriber exactly once, if the
  /// optional has a value.
  ///
  /// ```swift
  /// let cancellable = Optional<Int>.Publisher(nil).sink(
  ///   receiveCompletion: { print($0) },  // prints "finished"
  ///   receiveValue: { print($0) }        // never called
  /// )
  /// ```
  ///
  /// With a value, each subscriber receives its own subscription; the value is sent on the
  /// subscriber's first request, followed at once by ``Subscribers/Completion/finished``.
  /// Nothing is sent if the subscription is cancelled first, and no completion if it is
  /// cancelled from inside `receive(_:)`. Its description is `"Optional"`.
  /// With `nil`, the subscriber receives ``Subscriptions/empty`` and finishes at once. The
  /// publisher never fails.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. A value is
  /// > delivered on the thread that makes the first request; `nil` finishes on the subscribing
  /// > thread. `request(_:)` and `cancel()` are safe from any thread.
  public struct Publisher: StreamCore.Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Wrapped

    /// The kind of errors this publisher might publish.
    public typealias Failure = Never

    /// The output to deliver to each subscriber.
    public let output: Wrapped?

    /// Creates a publisher to emit the value of the optional, or to finish immediately if the
    /// optional doesn't have a value.
    ///
    /// - Parameter output: The result to deliver to each subscriber.
    public init(_ output: Output?) {
      self.output = output
    }

    /// Hands `subscriber` a subscription that sends the value on its first request, or
    /// finishes it at once for `nil`.
    ///
    /// - Parameter subscriber: The subscriber to attach to this publisher.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      if let output {
        subscriber.receive(subscription: Inner(downstream: subscriber, output: output))
      } else {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
      }
    }
  }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}

extension Optional.Publisher: Sendable where Wrapped: Sendable {}

extension Optional.Publisher {
  // Sendable: all mutable state is inside `state`, guarded by `lock`; the downstream is called
  // outside the lock, and only by the one thread that moved the state out of `pending`.
  private final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Never {
    /// ```
    /// pending --request(_:)--> sending --value delivered--> terminal   (then sends .finished)
    /// pending/sending --cancel()--> terminal   (no completion follows)
    /// ```
    private enum State {
      case pending(Downstream, Output)
      case sending
      case terminal
    }

    private let lock = Lock()
    private var state: State

    init(downstream: Downstream, output: Output) {
      state = .pending(downstream, output)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let pending = lock.withLock { () -> (Downstream, Output)? in
        guard case .pending(let downstream, let output) = state else { return nil }
        state = .sending
        return (downstream, output)
      }
      guard let (downstream, output) = pending else { return }
      _ = downstream.receive(output)
      let finishes = lock.withLock { () -> Bool in
        guard case .sending = state else { return false }  // cancelled inside `receive(_:)`
        state = .terminal
        return true
      }
      if finishes {
        downstream.receive(completion: .finished)
      }
    }

    func cancel() {
      let released = lock.withLock { () -> State in
        defer { state = .terminal }
        return state
      }
      _ = released
    }

    var description: String { "Optional" }

    var customMirror: Mirror {
      let output = lock.withLock { () -> Output? in
        guard case .pending(_, let output) = state else { return nil }
        return output
      }
      guard let output else { return Mirror(self, children: [:]) }
      return Mirror(self, children: ["value": output])
    }

    var playgroundDescription: Any { description }
  }
}
