extension Subscribers {
  /// A simple subscriber that requests an unlimited number of values upon subscription.
  ///
  /// ```swift
  /// let sink = Subscribers.Sink<Int, Never>(
  ///   receiveCompletion: { print("done:", $0) },
  ///   receiveValue: { print($0) }
  /// )
  /// [1, 2].publisher.subscribe(sink)
  /// ```
  ///
  /// A sink takes one subscription; it cancels any further subscription it is given. After the
  /// completion, or after ``cancel()``, it releases its subscription and ignores any further
  /// completion. Its description is `"Sink"`.
  ///
  /// > Thread safety: The closures run on the thread the publisher delivers on, one call at a
  /// > time. ``cancel()`` may be called from any thread.
  // Sendable: `state` is guarded by `lock`; the closures are only called by the upstream
  // publisher, which never calls a subscriber from two threads at once.
  public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  {
    /// The closure to execute on receipt of a value.
    public let receiveValue: (Input) -> Void

    /// The closure to execute on completion.
    public let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

    @usableFromInline
    let lock = Lock()

    @usableFromInline
    @exclusivity(unchecked) var state = SinkState.awaitingSubscription

    /// Initializes a sink with the provided closures.
    ///
    /// - Parameters:
    ///   - receiveCompletion: The closure to execute on completion.
    ///   - receiveValue: The closure to execute on receipt of a value.
    @inlinable
    public init(
      receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
      receiveValue: @escaping (Input) -> Void
    ) {
      self.receiveCompletion = receiveCompletion
      self.receiveValue = receiveValue
    }

    /// Keeps the first subscription and requests unlimited values; cancels any later one.
    @inlinable
    public func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard case .awaitingSubscription = state else { return false }
        state = .subscribed(subscription)
        return true
      }
      if accepted {
        subscription.request(.unlimited)
      } else {
        subscription.cancel()
      }
    }

    /// Calls `receiveValue`.
    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
      receiveValue(value)
      return .none
    }

    /// Releases the subscription and calls `receiveCompletion`, unless already cancelled.
    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
      let released = lock.withLock { () -> SinkState in
        defer { state = .closed }
        return state
      }
      if case .closed = released { return }
      receiveCompletion(completion)
    }

    /// Cancels and releases the subscription; later calls do nothing.
    @inlinable
    public func cancel() {
      let released = lock.withLock { () -> SinkState in
        defer { state = .closed }
        return state
      }
      if case .subscribed(let subscription) = released {
        subscription.cancel()
      }
    }

    /// `"Sink"`.
    public var description: String { "Sink" }

    /// A mirror with no children.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// The description.
    public var playgroundDescription: Any { description }
  }
}

extension Publisher {
  /// Attaches a subscriber with closure-based behavior.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher.sink(
  ///   receiveCompletion: { print("completion:", $0) },
  ///   receiveValue: { print("value:", $0) }
  /// )
  /// ```
  ///
  /// Requests unlimited values. Keep the returned token: the subscription is cancelled when it
  /// is deinitialised.
  ///
  /// - Parameters:
  ///   - receiveCompletion: The closure to execute on completion.
  ///   - receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  @inlinable
  public func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    let sink = Subscribers.Sink<Output, Failure>(
      receiveCompletion: receiveCompletion,
      receiveValue: receiveValue
    )
    subscribe(sink)
    return AnyCancellable(sink)
  }
}

extension Publisher where Failure == Never {
  /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
  ///
  /// ```swift
  /// let cancellable = subject.sink { print($0) }
  /// ```
  ///
  /// - Parameter receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  @inlinable
  public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
    sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
  }
}

/// The state of a ``Subscribers/Sink``, outside the generic class so that unspecialised code
/// needs no type metadata for it.
@usableFromInline
enum SinkState {
  case awaitingSubscription
  case subscribed(any Subscription)
  case closed
}
