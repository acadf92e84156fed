import FutureKit
import SignalOperators
public import StreamCore

extension Publisher {
  /// Subscribes and hands the first value, or the failure, to `handler` as one `Result`.
  ///
  /// ```swift
  /// let cancellable = request.result(onEmpty: APIError.noData) { result in
  ///   switch result {
  ///   case .success(let value): show(value)
  ///   case .failure(let error): report(error)
  ///   }
  /// }
  /// ```
  ///
  /// Requests `.max(1)`. The first value is handed over as `.success` at once, without waiting
  /// for upstream to finish, and upstream is then cancelled. A failure is handed over as
  /// `.failure`. A finish without a value evaluates `onEmpty` and hands its error over as
  /// `.failure`; when it gives `nil`, `handler` is not called. `handler` runs at most once, and
  /// is released afterwards. Discarding the returned token cancels the subscription, so keep it
  /// unless the publisher answers synchronously.
  ///
  /// > Thread safety: `handler` runs on the thread the publisher delivers on, with no lock held.
  /// > The returned token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - onEmpty: The error to report when upstream finishes without a value; evaluated only
  ///     then. `nil` (the default) means report nothing.
  ///   - handler: Receives the one result.
  /// - Returns: A cancellable that cancels the subscription.
  @discardableResult
  public func result(
    onEmpty: @escaping @autoclosure () -> Failure? = nil,
    _ handler: @escaping (Result<Output, Failure>) -> Void
  ) -> AnyCancellable {
    let subscriber = ResultSink<Output, Failure>(onEmpty: onEmpty, handler: handler)
    subscribe(subscriber)
    return AnyCancellable(subscriber)
  }
}

/// The subscriber behind `result(onEmpty:_:)`.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> subscribed
/// subscribed --first value / completion / cancel()--> closed (subscription and closures released)
/// ```
// The closures are taken out of `state` before they run, so each runs at most once.
// Sendable: `state` is guarded by `lock`; closures and the subscription are called outside it.
private final class ResultSink<Input, Failure: Error>: Subscriber, Cancellable,
  CustomStringConvertible, @unchecked Sendable
{
  private struct Closures {
    var onEmpty: () -> Failure?
    var handler: (Result<Input, Failure>) -> Void
  }

  private enum State {
    case awaitingSubscription(Closures)
    case subscribed(any Subscription, Closures)
    case closed
  }

  private let lock = Lock()
  private var state: State

  init(
    onEmpty: @escaping () -> Failure?,
    handler: @escaping (Result<Input, Failure>) -> Void
  ) {
    state = .awaitingSubscription(Closures(onEmpty: onEmpty, handler: handler))
  }

  var description: String { "Result" }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Bool in
      guard case .awaitingSubscription(let closures) = state else { return false }
      state = .subscribed(subscription, closures)
      return true
    }
    if accepted {
      subscription.request(.max(1))
    } else {
      subscription.cancel()
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let taken = lock.withLock { () -> (any Subscription, Closures)? in
      guard case .subscribed(let subscription, let closures) = state else { return nil }
      state = .closed
      return (subscription, closures)
    }
    guard let (subscription, closures) = taken else { return .none }
    closures.handler(.success(input))
    subscription.cancel()
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    // The subscription is released after the lock, with the closures.
    let taken = lock.withLock { () -> (any Subscription, Closures)? in
      guard case .subscribed(let subscription, let closures) = state else { return nil }
      state = .closed
      return (subscription, closures)
    }
    guard let (_, closures) = taken else { return }
    switch completion {
    case .failure(let error):
      closures.handler(.failure(error))
    case .finished:
      if let error = closures.onEmpty() {
        closures.handler(.failure(error))
      }
    }
  }

  func cancel() {
    let released = lock.withLock { () -> State in
      defer { state = .closed }
      return state
    }
    if case .subscribed(let subscription, _) = released {
      subscription.cancel()
    }
  }
}
