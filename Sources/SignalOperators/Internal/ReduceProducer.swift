public import StreamCore

/// What a reducing operator does with each value: the part that differs between `reduce`,
/// `count`, `min`, `contains`, `first`, `last` and the others built on
/// ``ReduceProducer``.
///
/// A reducer is a value owned by one subscription. ``reduce(_:)`` is called by the upstream's
/// thread, one value at a time and outside any lock; ``result`` is read once, after the upstream
/// finished or ``reduce(_:)`` returned `true`.
@usableFromInline
package protocol ValueReducer {
  associatedtype Element
  associatedtype Reduced
  associatedtype UpstreamFailure: Error
  associatedtype ReducedFailure: Error

  /// The subscription's description, as Combine names it.
  static var name: String { get }

  /// Folds `input` into the result; returns `true` when the result is final, so that the
  /// upstream is cancelled and the result sent without waiting for more values.
  mutating func reduce(_ input: Element) throws(ReducedFailure) -> Bool

  /// The value to send, or `nil` to finish without one.
  var result: Reduced? { get }

  /// Turns the upstream's failure into the operator's.
  static func failure(_ error: UpstreamFailure) -> ReducedFailure

  /// The subscription's mirror children, as Combine's subscription for this operator shows them.
  static func mirrorChildren(
    downstream: Any,
    result: Reduced?,
    initial: Reduced?,
    status: SubscriptionStatus
  ) -> [Mirror.Child]
}

extension ValueReducer {
  /// `downstream`, `result` (so far), `initial` and `status`, as most of Combine's reducing
  /// operators show them.
  @inlinable
  package static func mirrorChildren(
    downstream: Any,
    result: Reduced?,
    initial: Reduced?,
    status: SubscriptionStatus
  ) -> [Mirror.Child] {
    [
      ("downstream", downstream), ("result", result as Any), ("initial", initial as Any),
      ("status", status),
    ]
  }
}

extension ValueReducer where ReducedFailure == UpstreamFailure {
  @inlinable
  package static func failure(_ error: UpstreamFailure) -> ReducedFailure { error }
}

/// The subscription of the reducing operators: requests `.unlimited` from the upstream, folds
/// each value with `Reducer`, and sends the one result (if any) and `.finished` once the upstream
/// has finished, or the reducer decided early, and the downstream has requested. A failure
/// passes through at once; an error thrown by the reducer cancels the upstream and fails.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> active(reducer)
/// active(reducer) --receive(_:)--> active(nil) --reduced--> active(reducer)
/// active --finished or reducer says done--> resolved(result) --first request--> terminal
/// active --resolved while requested / failure / thrown error / cancel()--> terminal
/// ```
///
/// The reducer is checked out of the state while a value is folded, so that the user's closure
/// runs without the lock, and a `cancel()` from another thread meanwhile leaves its release to
/// the folding thread.
// Sendable: all mutable state is guarded by `lock`; the reducer runs outside it, checked out by
// the upstream's thread, and the downstream and upstream are called outside it.
@usableFromInline
package final class ReduceProducer<Downstream: Subscriber, Reducer: ValueReducer>:
  // Sendable: state guarded by `lock`, calls made outside it (the reason above the class).
  @unchecked Sendable, Subscriber, Subscription, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible, CustomReflectable
where Downstream.Input == Reducer.Reduced, Downstream.Failure == Reducer.ReducedFailure {
  @usableFromInline
  package typealias Input = Reducer.Element

  @usableFromInline
  package typealias Failure = Reducer.UpstreamFailure

  @usableFromInline
  package enum State {
    case awaitingSubscription(Reducer)
    /// The reducer is `nil` while the upstream's thread folds a value with it.
    case active(any Subscription, Reducer?)
    /// Upstream is done; the result waits for the downstream's first request.
    case resolved(Reducer.Reduced?)
    case terminal
  }

  /// What to send downstream once the lock is released.
  @usableFromInline
  package enum Delivery {
    case result(Downstream, Reducer.Reduced?)
    case failure(Downstream, Reducer.ReducedFailure)
  }

  @usableFromInline
  package let lock = Lock()

  @usableFromInline
  package var state: State

  /// `nil` once terminal.
  @usableFromInline
  package var downstream: Downstream?

  /// Whether the downstream has requested; one request is enough for the one result.
  @usableFromInline
  package var requested = false

  /// Set by `cancel()`, so that a cancel from inside `receive(_:)`, or from another thread once
  /// the result was on its way, stops the `.finished` after it.
  @usableFromInline
  package var cancelled = false

  /// The reducer's result before any value (the mirror's `initial` child: the initial value of
  /// `reduce`, zero for `count`, `nil` for `first`).
  @usableFromInline
  package let initialResult: Reducer.Reduced?

  /// The result so far when the upstream ended or the subscription was cancelled, kept for the
  /// mirror once the state no longer holds it (as Combine's subscription keeps it).
  @usableFromInline
  package var resolvedResult: Reducer.Reduced?

  @inlinable
  package init(downstream: Downstream, reducer: Reducer) {
    self.downstream = downstream
    self.initialResult = reducer.result
    self.state = .awaitingSubscription(reducer)
  }

  @inlinable
  package func receive(subscription: any Subscription) {
    let downstream = lock.withLock { () -> Downstream? in
      guard case .awaitingSubscription(let reducer) = state else { return nil }
      state = .active(subscription, reducer)
      return self.downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
    let stillActive = lock.withLock { () -> Bool in
      if case .active = state { return true }
      return false
    }
    if stillActive { subscription.request(.unlimited) }
  }

  @inlinable
  package func receive(_ input: Input) -> Subscribers.Demand {
    let checkedOut = lock.withLock { () -> Reducer? in
      guard case .active(let subscription, let reducer?) = state else { return nil }
      state = .active(subscription, nil)
      return reducer
    }
    guard var reducer = checkedOut else { return .none }
    let outcome: Result<Reducer.Reduced?, Reducer.ReducedFailure>
    do throws(Reducer.ReducedFailure) {
      guard try reducer.reduce(input) else {
        let released = lock.withLock { () -> Reducer? in
          guard case .active(let subscription, nil) = state else { return reducer }  // cancelled
          state = .active(subscription, reducer)
          return nil
        }
        _ = released  // dropped after the lock
        return .none
      }
      outcome = .success(reducer.result)
    } catch {
      outcome = .failure(error)
    }
    let (released, delivery) = lock.withLock { () -> (State?, Delivery?) in
      guard case .active(_, nil) = state else { return (nil, nil) }
      let released = state
      return (released, resolve(outcome))
    }
    if case .active(let upstream, _) = released {
      upstream.cancel()
    }
    if let delivery { deliver(delivery) }
    return .none
  }

  @inlinable
  package func receive(completion: Subscribers.Completion<Failure>) {
    let (released, delivery) = lock.withLock { () -> (State?, Delivery?) in
      guard case .active(_, let reducer) = state else { return (nil, nil) }
      let released = state
      resolvedResult = reducer?.result
      switch completion {
      case .finished:
        return (released, resolve(.success(reducer?.result)))
      case .failure(let error):
        return (released, resolve(.failure(Reducer.failure(error))))
      }
    }
    _ = released  // the upstream subscription and the reducer, dropped after the lock
    if let delivery { deliver(delivery) }
  }

  /// Moves to `resolved`, or to `terminal` if the outcome can go downstream now. Call it under
  /// `lock`.
  @inlinable
  package func resolve(_ outcome: Result<Reducer.Reduced?, Reducer.ReducedFailure>) -> Delivery? {
    switch outcome {
    case .success(let result):
      resolvedResult = result
      guard requested else {
        state = .resolved(result)
        return nil
      }
      state = .terminal
      guard let downstream = downstream.take() else { return nil }
      return .result(downstream, result)
    case .failure(let error):
      state = .terminal
      guard let downstream = downstream.take() else { return nil }
      return .failure(downstream, error)
    }
  }

  @inlinable
  package func deliver(_ delivery: Delivery) {
    switch delivery {
    case .result(let downstream, let result):
      if let result { _ = downstream.receive(result) }
      if lock.withLock({ cancelled }) { return }  // from inside `receive(_:)` or another thread
      downstream.receive(completion: .finished)
    case .failure(let downstream, let error):
      downstream.receive(completion: .failure(error))
    }
  }

  @inlinable
  package func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let delivery = lock.withLock { () -> Delivery? in
      guard !requested else { return nil }
      requested = true
      guard case .resolved(let result) = state else { return nil }
      state = .terminal
      guard let downstream = downstream.take() else { return nil }
      return .result(downstream, result)
    }
    if let delivery { deliver(delivery) }
  }

  @inlinable
  package func cancel() {
    let released = lock.withLock { () -> (state: State, downstream: Downstream?) in
      cancelled = true
      if case .active(_, let reducer?) = state { resolvedResult = reducer.result }
      defer { state = .terminal }
      return (state, downstream.take())
    }
    if case .active(let subscription, _) = released.state {
      subscription.cancel()
    }
  }

  @usableFromInline
  package var description: String { Reducer.name }

  @usableFromInline
  package var playgroundDescription: Any { description }

  /// As Combine's: the downstream, the result so far, the initial result and the status (see
  /// ``ValueReducer/mirrorChildren(downstream:result:initial:status:)``).
  @usableFromInline
  package var customMirror: Mirror {
    let (downstream, result, status) = lock.withLock {
      () -> (Downstream?, Reducer.Reduced?, SubscriptionStatus) in
      switch state {
      case .awaitingSubscription(let reducer):
        return (self.downstream, reducer.result, .awaitingSubscription)
      case .active(let subscription, let reducer):
        return (self.downstream, reducer?.result, .subscribed(subscription))
      case .resolved, .terminal:
        return (self.downstream, resolvedResult, .terminal)
      }
    }
    let children = Reducer.mirrorChildren(
      downstream: downstream.map { $0 as Any } ?? (nil as Downstream? as Any),
      result: result,
      initial: initialResult,
      status: status
    )
    return Mirror(self, children: children)
  }
}
