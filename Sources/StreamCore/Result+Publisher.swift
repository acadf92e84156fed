extension Result {
  /// A publisher that publishes this result once: its success value then finishes, or its
  /// failure.
  ///
  /// ```swift
  /// let parsed: Result<Int, ParseError> = .success(42)
  /// let cancellable = parsed.publisher.sink(
  ///   receiveCompletion: { print($0) },  // prints "finished"
  ///   receiveValue: { print($0) }        // prints 42
  /// )
  /// ```
  public var publisher: Publisher {
    Publisher(self)
  }

  /// A publisher that publishes an output to each subscriber exactly once then finishes, or
  /// fails immediately without producing any elements.
  ///
  /// ```swift
  /// let cancellable = Result<Int, ParseError>.Publisher(42).sink(
  ///   receiveCompletion: { print($0) },
  ///   receiveValue: { print($0) }
  /// )
  /// ```
  ///
  /// For a success, each subscriber receives its own subscription; the value is sent on the
  /// subscriber's first request, followed at once by ``Subscribers/Completion/finished``.
  /// Nothing is sent if the subscription is cancelled first, and no completion if it is
  /// cancelled from inside `receive(_:)`. Its description is `"Once"`. For a failure, the
  /// subscriber receives ``Subscriptions/empty`` and the failure at once, without waiting for
  /// demand.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. A success is
  /// > delivered on the thread that makes the first request, a failure on the subscribing
  /// > thread. `request(_:)` and `cancel()` are safe from any thread.
  public struct Publisher: StreamCore.Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Success

    /// The result to deliver to each subscriber.
    public let result: Result<Output, Failure>

    /// Creates a publisher that delivers the specified result.
    ///
    /// - Parameter result: The result to deliver to each subscriber.
    public init(_ result: Result<Output, Failure>) {
      self.result = result
    }

    /// Creates a publisher that sends the specified output to all subscribers and then
    /// finishes normally.
    ///
    /// - Parameter output: The output to deliver to each subscriber.
    public init(_ output: Output) {
      self.init(.success(output))
    }

    /// Creates a publisher that immediately terminates upon subscription with the given
    /// failure.
    ///
    /// - Parameter failure: The failure to send when terminating.
    public init(_ failure: Failure) {
      self.init(.failure(failure))
    }

    /// Hands `subscriber` a subscription that sends the success on its first request, or fails
    /// it at once.
    ///
    /// - Parameter subscriber: The subscriber to attach to this publisher.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      switch result {
      case .success(let output):
        subscriber.receive(subscription: Inner(downstream: subscriber, output: output))
      case .failure(let error):
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
      }
    }
  }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}

extension Result.Publisher: Sendable where Success: Sendable {}

extension Result.Publisher {
  // Sendable: all mutable state is inside `state`, guarded by `lock`; the downstream is called
  // outside the lock, and only by the one thread that moved the state out of `pending`.
  private final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
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

    var description: String { "Once" }

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
