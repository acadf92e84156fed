/// The subscription of publishers that send one value and finish: ``Just``,
/// `Optional.Publisher` (with a value) and `Result.Publisher` (with a success).
///
/// The value is sent on the first request, followed at once by `.finished`. Nothing is sent if
/// the subscription is cancelled first, and no completion if it is cancelled from inside
/// `receive(_:)`.
///
/// ```
/// pending --request(_:)--> sending --value delivered--> terminal   (then sends .finished)
/// pending/sending --cancel()--> terminal   (no completion follows)
/// ```
// Sendable: all mutable state is inside `state`, guarded by `lock`; the downstream is called
// outside the lock, and only by the one thread that moved the state out of `pending`.
final class SingleValueSubscription<Downstream: Subscriber>: @unchecked Sendable, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  private enum State {
    case pending(Downstream, Downstream.Input)
    case sending
    case terminal
  }

  private let lock = Lock()
  private var state: State
  private let name: StaticString

  /// - Parameters:
  ///   - downstream: The subscriber.
  ///   - output: The one value to send.
  ///   - name: The description, as Combine names this publisher's subscription.
  init(downstream: Downstream, output: Downstream.Input, name: StaticString) {
    state = .pending(downstream, output)
    self.name = name
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let pending = lock.withLock { () -> (Downstream, Downstream.Input)? in
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

  var description: String { "\(name)" }

  var customMirror: Mirror {
    let output = lock.withLock { () -> Downstream.Input? in
      guard case .pending(_, let output) = state else { return nil }
      return output
    }
    guard let output else { return Mirror(self, children: [:]) }
    return Mirror(self, children: ["value": output])
  }

  var playgroundDescription: Any { description }
}
