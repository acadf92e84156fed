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
  /// A sink takes one subscription; it cancels any further subscription it is given. As in
  /// Combine, it lets go of its closures (and whatever they capture, such as their owner) when it
  /// completes, and when it is cancelled after its subscription arrived; from then on it ignores
  /// values and completions. Its description is `"Sink"`.
  ///
  /// > Thread safety: The closures run on the thread the publisher delivers on, one call at a
  /// > time. ``cancel()`` may be called from any thread.
  // Sendable: `state` and `closures` are guarded by `lock`; the closures are called after it, and
  // only by the upstream publisher, which never calls a subscriber from two threads at once.
  public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  {
    /// The closure to execute on receipt of a value; one that does nothing once the sink has
    /// let go of it.
    public var receiveValue: (Input) -> Void {
      lock.withLock { closures?.receiveValue } ?? { _ in }
    }

    /// The closure to execute on completion; one that does nothing once the sink has let go of
    /// it.
    public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
      lock.withLock { closures?.receiveCompletion } ?? { _ in }
    }

    @usableFromInline
    let lock = Lock()

    @usableFromInline
    @exclusivity(unchecked) var state = SinkState.awaitingSubscription

    /// `nil` once the sink has let go of them.
    @usableFromInline
    @exclusivity(unchecked) var closures: Closures?

    /// The two closures, held together so that they are let go of together. A class, so that
    /// taking them out under the lock copies one reference: returning a generic closure out of
    /// `withLock` would allocate a reabstraction thunk per value.
    @usableFromInline
    final class Closures {
      @usableFromInline let receiveValue: (Input) -> Void
      @usableFromInline let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

      @inlinable
      init(
        receiveValue: @escaping (Input) -> Void,
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
      ) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
      }
    }

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
      closures = Closures(receiveValue: receiveValue, receiveCompletion: receiveCompletion)
    }

    /// Keeps the first subscription and requests unlimited values; cancels any later one, and
    /// one that arrives after the completion or a cancel.
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

    /// Calls `receiveValue`, unless the sink has completed or been cancelled. A value before the
    /// subscription is delivered, as in Combine.
    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
      let closures = lock.withLock { () -> Closures? in
        if case .closed = state { return nil }
        return self.closures
      }
      closures?.receiveValue(value)
      return .none
    }

    /// Lets go of the subscription and the closures, and calls `receiveCompletion`, unless the
    /// sink has already completed or been cancelled.
    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
      let (released, closures) = lock.withLock { () -> (SinkState, Closures?) in
        defer { state = .closed }
        guard case .closed = state else { return (state, self.closures.take()) }
        return (state, nil)
      }
      if case .closed = released { return }
      closures?.receiveCompletion(completion)
    }  // the closures, and what they capture, are released here, after the lock

    /// Cancels and lets go of the subscription and the closures; later calls do nothing. Before
    /// the subscription, the closures are kept (as in Combine), and the subscription is
    /// cancelled when it arrives.
    @inlinable
    public func cancel() {
      let (released, closures) = lock.withLock { () -> (SinkState, Closures?) in
        defer { state = .closed }
        guard case .subscribed = state else { return (state, nil) }
        return (state, self.closures.take())
      }
      if case .subscribed(let subscription) = released {
        subscription.cancel()
      }
      _ = consume closures
    }  // the closures, and what they capture, are released here, after the lock

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
