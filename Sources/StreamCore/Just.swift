/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// ```swift
/// let cancellable = Just(42).sink { print($0) }  // prints 42
/// ```
///
/// Each subscriber receives its own subscription. The value is sent on the subscriber's first
/// request, followed at once by ``Subscribers/Completion/finished``. Nothing is sent if the
/// subscription is cancelled first, and no completion if it is cancelled from inside
/// `receive(_:)`. A `Just` can't fail. Its subscription's description is `"Just"`.
///
/// > Thread safety: A value type; `subscribe` may be called from any thread. The value and the
/// > completion are delivered on the thread that makes the first request. `request(_:)` and
/// > `cancel()` are safe from any thread.
public struct Just<Output>: Publisher {
  /// The kind of errors this publisher might publish.
  public typealias Failure = Never

  /// The one element that the publisher emits.
  public let output: Output

  /// Initializes a publisher that emits the specified output just once.
  ///
  /// - Parameter output: The one element that the publisher emits.
  public init(_ output: Output) {
    self.output = output
  }

  /// Hands `subscriber` a subscription that sends the output on its first request.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    subscriber.receive(subscription: Inner(downstream: subscriber, output: output))
  }
}

extension Just: Equatable where Output: Equatable {}

extension Just: Sendable where Output: Sendable {}

extension Just {
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

    var description: String { "Just" }

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
