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
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      if let output {
        subscribeSingleValue(subscriber, output: output, name: "Optional")
      } else {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
      }
    }
  }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}

extension Optional.Publisher: Sendable where Wrapped: Sendable {}
