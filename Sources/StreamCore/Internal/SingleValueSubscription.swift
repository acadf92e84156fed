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
///
/// This code often runs unspecialised (a `Just` behind an `AnyPublisher`, or subscribed from
/// generic code), where each generic type a function builds (a tuple, an optional tuple, an enum
/// with generic payloads) costs a lookup in the runtime's metadata cache. So the phase is a
/// non-generic enum, the downstream and the value are fields beside it, and the critical sections
/// return only non-generic values. Measured on `flatMapErased` (`Benchmarks/run.py`): see
/// `Docs/Internals.md`.
// Sendable: `phase` and `downstream` are guarded by `lock`; `output` is immutable; the downstream
// is called outside the lock, only by the one thread that moved the phase out of `pending`.
final class SingleValueSubscription<Downstream: Subscriber>: @unchecked Sendable, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  private let lock = Lock()
  private var phase = SingleValuePhase.pending
  /// `nil` once terminal.
  private var downstream: Downstream?
  /// The value to send. Kept until the subscription is released, as the publisher keeps its
  /// own copy: emptying an optional here cost more in unspecialised code than the rest of a
  /// request (`flatMapErased` 6,764 -> 9,711 instructions per value).
  private let output: Downstream.Input
  private let name: StaticString

  /// - Parameters:
  ///   - downstream: The subscriber.
  ///   - output: The one value to send.
  ///   - name: The description, as Combine names this publisher's subscription.
  init(downstream: Downstream, output: Downstream.Input, name: StaticString) {
    self.downstream = downstream
    self.output = output
    self.name = name
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    var sender: Downstream?
    let sends = lock.withLock { () -> Bool in
      guard phase == .pending else { return false }
      phase = .sending
      sender = downstream
      return true
    }
    guard sends, let sender else { return }
    _ = sender.receive(output)
    var released: Downstream?
    let finishes = lock.withLock { () -> Bool in
      guard phase == .sending else { return false }  // cancelled inside `receive(_:)`
      phase = .terminal
      released = downstream.take()
      return true
    }
    if finishes {
      sender.receive(completion: .finished)
    }
    _ = released
  }

  func cancel() {
    var released: Downstream?
    lock.withLock {
      phase = .terminal
      released = downstream.take()
    }
    _ = released
  }

  var description: String { "\(name)" }

  /// The value, unlabelled, before and after it is sent (as Combine's).
  var customMirror: Mirror { Mirror(self, unlabeledChildren: [output]) }

  var playgroundDescription: Any { description }
}

/// Where a ``SingleValueSubscription`` is; not generic, so that unspecialised code reads it
/// without a metadata lookup.
enum SingleValuePhase {
  case pending
  case sending
  case terminal
}
