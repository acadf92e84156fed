import FutureKit
import SignalOperators
import StreamCore

/// What a synchronous deferred publisher's closure produced: a value (followed by `.finished`),
/// or a completion without a value.
enum DeferredOutcome<Output, Failure: Error> {
  /// Send this value, then `.finished`.
  case value(Output)
  /// Send this completion and no value.
  case completion(Subscribers.Completion<Failure>)
}

/// A deferred publisher whose closure answers synchronously: ``DeferredValue``,
/// ``DeferredTryValue``, ``DeferredResult``, ``DeferredComplete`` and ``DeferredTryComplete``.
///
/// Each one only says how to turn its closure's result into a ``DeferredOutcome``;
/// ``DeferredSubscription`` does the rest.
protocol DeferredOneShot: Publisher {
  /// The description of this publisher's subscriptions, such as `"DeferredValue"`.
  static var subscriptionName: StaticString { get }

  /// Runs the closure; called at most once per subscription, outside any lock.
  func makeOutcome() -> DeferredOutcome<Output, Failure>
}

extension DeferredOneShot {
  /// Hands `subscriber` a ``DeferredSubscription`` that runs this publisher's closure on the
  /// first positive request.
  func attach<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(
      subscription: DeferredSubscription(downstream: subscriber, source: self)
    )
  }
}

/// The subscription of the synchronous deferred publishers.
///
/// On the first request with positive demand it runs the publisher's closure (once, on the
/// requesting thread, with no lock held), then sends the value and `.finished`, or just the
/// completion. A request of any size is enough, since there is at most one value. Nothing runs
/// if the subscription is cancelled first; nothing more is sent once it is cancelled, including
/// from inside the closure or from inside `receive(_:)`.
///
/// ```
/// pending --request(_:)--> running    (the closure runs outside the lock)
/// running --value delivered / completion--> terminal
/// pending / running --cancel()--> terminal
/// ```
// Sendable: all mutable state is in `state`, guarded by `lock`. The closure and the downstream
// are called outside the lock, and only by the one thread that moved the state out of `pending`.
final class DeferredSubscription<Source: DeferredOneShot, Downstream: Subscriber>:
  @unchecked Sendable, Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Downstream.Input == Source.Output, Downstream.Failure == Source.Failure {
  private enum State {
    case pending(Downstream, Source)
    case running(Downstream)
    case terminal
  }

  private let lock = Lock()
  private var state: State

  /// - Parameters:
  ///   - downstream: The subscriber.
  ///   - source: The publisher whose closure runs on the first request.
  init(downstream: Downstream, source: Source) {
    state = .pending(downstream, source)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let source = lock.withLock { () -> Source? in
      guard case .pending(let downstream, let source) = state else { return nil }
      state = .running(downstream)
      return source
    }
    guard let source else { return }
    switch source.makeOutcome() {
    case .value(let value):
      let running = lock.withLock { () -> Downstream? in
        guard case .running(let downstream) = state else { return nil }  // cancelled meanwhile
        return downstream
      }
      guard let running else { return }
      _ = running.receive(value)
      finish(with: .finished)
    case .completion(let completion):
      finish(with: completion)
    }
  }

  func cancel() {
    let released = lock.withLock { () -> State in
      defer { state = .terminal }
      return state
    }
    _ = released  // the downstream and the closure are released here, outside the lock
  }

  /// Sends `completion` unless the subscription was cancelled in the meantime.
  private func finish(with completion: Subscribers.Completion<Downstream.Failure>) {
    let downstream = lock.withLock { () -> Downstream? in
      guard case .running(let downstream) = state else { return nil }
      state = .terminal
      return downstream
    }
    downstream?.receive(completion: completion)
  }

  var description: String { "\(Source.subscriptionName)" }

  var customMirror: Mirror { Mirror(self, children: [:]) }

  var playgroundDescription: Any { description }
}
