import FutureKit
import SignalOperators
public import StreamCore

/// A lazy `Future`: when a subscriber first asks for a value, it runs a closure that is handed a
/// promise, and sends the value or failure the promise is called with.
///
/// ```swift
/// let weather = DeferredFuture<Forecast, NetworkError> { promise in
///   client.fetchForecast(for: city) { result in promise(result) }  // called back on any thread
/// }
/// let cancellable = weather.sink(
///   receiveCompletion: { print($0) },
///   receiveValue: { show($0) }
/// )
/// ```
///
/// ``closure`` runs once per subscription, synchronously inside the subscriber's first
/// `request(_:)` with positive demand, on the thread that makes that request; every new
/// subscriber runs it again, with its own promise. Subscribing runs nothing, and a subscription
/// cancelled before its first request never runs the closure.
///
/// The promise may be called inside the closure or later, from any thread; the result is
/// delivered on the thread that calls it, within that call. `.success` sends the value followed
/// at once by `.finished` (unless the subscriber cancels from
/// inside `receive(_:)`); `.failure` sends the error as the completion. Only the first call
/// counts: later calls are ignored. A result that arrives after the subscription was cancelled
/// is dropped. Its subscription's description is `"DeferredFuture"`.
///
/// Unlike Combine's `Future`, the closure doesn't run at initialisation, nothing is cached and
/// each subscriber gets its own run.
///
/// > Thread safety: A `Sendable` value type; `subscribe` may be called from any thread. The
/// > closure is `@Sendable`, because two subscriptions of one publisher can run it at the same
/// > time on different threads, and so is the promise, so that it can be handed to another
/// > thread or queue. `request(_:)`, `cancel()` and the promise are safe from any thread, and no
/// > lock is held while the closure or the subscriber runs.
public struct DeferredFuture<Output, Failure: Error>: Publisher {
  /// The promise handed to ``closure``: call it once, from any thread, with the result.
  public typealias Promise = @Sendable (Result<Output, Failure>) -> Void

  /// The closure that starts the work, handed the promise to complete it.
  public typealias Closure = @Sendable (@escaping Promise) -> Void

  /// The closure that starts the work, run once per subscription.
  public let closure: Closure

  /// Creates a publisher that runs `attempt` on each subscription's first positive request.
  ///
  /// ```swift
  /// let answer = DeferredFuture<Int, Never> { promise in
  ///   DispatchQueue.global().async { promise(.success(42)) }
  /// }
  /// ```
  ///
  /// - Parameter attempt: Starts the work and calls the promise with its result, then or later.
  public init(_ attempt: @escaping Closure) {
    closure = attempt
  }

  /// Hands `subscriber` a subscription that runs ``closure`` on its first positive request.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Inner(downstream: subscriber, closure: closure))
  }
}

extension DeferredFuture: Sendable {}

extension DeferredFuture {
  /// The subscription: runs the closure on the first positive request and delivers the first
  /// result the promise is called with.
  ///
  /// The promise holds the subscription, not the subscriber, so a promise kept after the
  /// completion or cancel keeps only this small object alive.
  // Sendable: all mutable state is in `state`, guarded by `lock`. The closure runs once, and the
  // downstream is called only by the one thread that moved the state out of `awaiting`.
  private final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    /// ```
    /// pending --request(_:)--> awaiting          (the closure runs outside the lock)
    /// awaiting --promise(.success)--> delivering --value delivered--> terminal (+ .finished)
    /// awaiting --promise(.failure)--> terminal   (+ .failure)
    /// pending / awaiting / delivering --cancel()--> terminal
    /// ```
    private enum State {
      case pending(Downstream, Closure)
      case awaiting(Downstream)
      case delivering(Downstream)
      case terminal
    }

    private let lock = Lock()
    private var state: State

    init(downstream: Downstream, closure: @escaping Closure) {
      state = .pending(downstream, closure)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let closure = lock.withLock { () -> Closure? in
        guard case .pending(let downstream, let closure) = state else { return nil }
        state = .awaiting(downstream)
        return closure
      }
      closure?({ result in self.resolve(result) })
    }

    func cancel() {
      let released = lock.withLock { () -> State in
        defer { state = .terminal }
        return state
      }
      _ = released  // the downstream and the closure are released here, outside the lock
    }

    /// The promise: delivers the first result; later calls, and calls after cancel, do nothing.
    private func resolve(_ result: Result<Output, Failure>) {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .awaiting(let downstream) = state else { return nil }
        if case .success = result {
          state = .delivering(downstream)
        } else {
          state = .terminal
        }
        return downstream
      }
      guard let downstream else { return }
      switch result {
      case .success(let value):
        _ = downstream.receive(value)
        let finishes = lock.withLock { () -> Bool in
          guard case .delivering = state else { return false }  // cancelled inside receive(_:)
          state = .terminal
          return true
        }
        if finishes { downstream.receive(completion: .finished) }
      case .failure(let error):
        downstream.receive(completion: .failure(error))
      }
    }

    var description: String { "DeferredFuture" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }
  }
}
