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
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      switch result {
      case .success(let output):
        subscribeSingleValue(subscriber, output: output, name: "Once")
      case .failure(let error):
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
      }
    }
  }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}

extension Result.Publisher: Sendable where Success: Sendable {}
