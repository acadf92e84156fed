import FutureKit
import SignalOperators
public import StreamCore

extension Subscribers {
  /// A subscriber that requests a fixed number of values once, and ends itself when they arrive.
  ///
  /// ```swift
  /// let sink = Subscribers.FixedSink<Int, Never>(
  ///   demand: 2,
  ///   receiveCompletion: { print("done:", $0) },
  ///   receiveValue: { print($0) }
  /// )
  /// (1...5).publisher.subscribe(sink)  // 1, 2, done: finished
  /// ```
  ///
  /// - On subscription it requests `.max(demand)` once, and never asks for more.
  /// - When the `demand`-th value arrives it calls `receiveValue` with it, then calls
  ///   `receiveCompletion` with a made-up `.finished`, then cancels the upstream.
  /// - A completion that arrives earlier is passed through as it is; the upstream is not
  ///   cancelled then.
  /// - It takes one subscription; it cancels any further subscription it is given.
  /// - After the completion, or after ``cancel()``, it releases its subscription and both
  ///   closures, and ignores further values and completions. Cancelling from inside
  ///   `receiveValue` while the last value is delivered does not stop the made-up `.finished`.
  ///
  /// > Thread safety: The closures run on the thread the publisher delivers on, one call at a
  /// > time, with no lock held, so they may call ``cancel()``. ``cancel()`` may be called from
  /// > any thread.
  // Sendable: all mutable state is guarded by `lock`; the closures are only called by the
  // upstream publisher, which never calls a subscriber from two threads at once.
  public final class FixedSink<Input, Failure: Error>: Subscriber, Cancellable,
    CustomStringConvertible, @unchecked Sendable
  {
    /// The number of values requested from the upstream, always greater than zero.
    public let demand: Int

    private let lock = Lock()
    private var state: FixedSinkState
    private var valueHandler: ((Input) -> Void)?
    private var completionHandler: ((Subscribers.Completion<Failure>) -> Void)?

    /// Creates a sink that requests `demand` values.
    ///
    /// - Precondition: `demand` is greater than zero.
    /// - Parameters:
    ///   - demand: How many values to request; must be greater than zero.
    ///   - receiveCompletion: The closure to execute on completion; `nil` (the default) for none.
    ///   - receiveValue: The closure to execute on receipt of a value; `nil` (the default) for
    ///     none.
    public init(
      demand: Int,
      receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
      receiveValue: ((Input) -> Void)? = nil
    ) {
      precondition(demand > 0, "FixedSink: demand must be greater than zero, got \(demand)")
      self.demand = demand
      self.state = .awaitingSubscription
      self.valueHandler = receiveValue
      self.completionHandler = receiveCompletion
    }

    /// Creates the sink with only a value closure, in the trailing-closure form of Conbini's
    /// README.
    ///
    /// ```swift
    /// let subscriber = Subscribers.FixedSink<Int, Never>(demand: 5) { value in print(value) }
    /// ```
    ///
    /// Without this overload the trailing closure would go to `receiveCompletion`, the first
    /// closure parameter.
    ///
    /// - Parameters:
    ///   - demand: As in ``init(demand:receiveCompletion:receiveValue:)``.
    ///   - receiveValue: The closure to execute on receipt of a value.
    public convenience init(demand: Int, receiveValue: @escaping (Input) -> Void) {
      self.init(demand: demand, receiveCompletion: nil, receiveValue: receiveValue)
    }

    /// The closure to execute on receipt of a value, or `nil` once the sink has ended.
    public var receiveValue: ((Input) -> Void)? {
      lock.withLock { valueHandler }
    }

    /// The closure to execute on completion, or `nil` once the sink has ended.
    public var receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? {
      lock.withLock { completionHandler }
    }

    /// Keeps the first subscription and requests `.max(demand)`; cancels any later one.
    public func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard case .awaitingSubscription = state else { return false }
        state = .subscribed(subscription, remaining: demand)
        return true
      }
      if accepted {
        subscription.request(.max(demand))
      } else {
        subscription.cancel()
      }
    }

    /// Calls `receiveValue`; on the last requested value, also completes and cancels upstream.
    public func receive(_ input: Input) -> Subscribers.Demand {
      let action = lock.withLock { () -> FixedSinkValueAction<Input, Failure> in
        guard case .subscribed(let subscription, let remaining) = state else { return .ignore }
        // `nil` when the sink was made without a value closure: the value still counts.
        let handler = valueHandler
        if remaining > 1 {
          state = .subscribed(subscription, remaining: remaining - 1)
          return .deliver(handler)
        }
        state = .closed
        let completion = completionHandler
        valueHandler = nil
        completionHandler = nil
        return .deliverAndEnd(handler, completion, subscription)
      }
      switch action {
      case .ignore:
        break
      case .deliver(let handler):
        handler?(input)
      case .deliverAndEnd(let handler, let completion, let subscription):
        handler?(input)
        completion?(.finished)
        subscription.cancel()
      }
      return .none
    }

    /// Releases the subscription and calls `receiveCompletion`, unless the sink has ended.
    public func receive(completion: Subscribers.Completion<Failure>) {
      // Everything is moved out and released after the lock: a closure's captures may cancel
      // this sink from their deinit.
      let released = lock.withLock {
        () -> (FixedSinkState, ((Input) -> Void)?, ((Subscribers.Completion<Failure>) -> Void)?)? in
        if case .closed = state { return nil }
        defer {
          state = .closed
          valueHandler = nil
          completionHandler = nil
        }
        return (state, valueHandler, completionHandler)
      }
      released?.2?(completion)
    }

    /// Cancels and releases the subscription and the closures; later calls do nothing.
    public func cancel() {
      // Moved out and released after the lock, as in `receive(completion:)`.
      let (released, _, _) = lock.withLock {
        () -> (FixedSinkState, ((Input) -> Void)?, ((Subscribers.Completion<Failure>) -> Void)?) in
        defer {
          state = .closed
          valueHandler = nil
          completionHandler = nil
        }
        return (state, valueHandler, completionHandler)
      }
      if case .subscribed(let subscription, _) = released {
        subscription.cancel()
      }
    }

    /// `"FixedSink"`.
    public var description: String { "FixedSink" }
  }
}

extension Publisher {
  /// Attaches a subscriber that requests exactly `fixedDemand` values and then ends itself.
  ///
  /// ```swift
  /// let cancellable = numbers.sink(
  ///   fixedDemand: 3,
  ///   receiveCompletion: { print("completion:", $0) },
  ///   receiveValue: { print("value:", $0) }
  /// )
  /// ```
  ///
  /// Requests `.max(fixedDemand)` once. After the last of those values it calls
  /// `receiveCompletion` with `.finished` and cancels the upstream; an earlier completion is
  /// passed through. Keep the returned token: the subscription is cancelled when it is
  /// deinitialised. See ``StreamCore/Subscribers/FixedSink``.
  ///
  /// > Thread safety: The closures run on the thread the publisher delivers on, one call at a
  /// > time. The returned token may be cancelled from any thread.
  ///
  /// - Precondition: `fixedDemand` is greater than zero.
  /// - Parameters:
  ///   - fixedDemand: How many values to request; must be greater than zero.
  ///   - receiveCompletion: The closure to execute on completion; `nil` (the default) for none.
  ///   - receiveValue: The closure to execute on receipt of a value; `nil` (the default) for
  ///     none.
  /// - Returns: A cancellable that cancels the subscription.
  public func sink(
    fixedDemand: Int,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
    receiveValue: ((Output) -> Void)? = nil
  ) -> AnyCancellable {
    let sink = Subscribers.FixedSink<Output, Failure>(
      demand: fixedDemand,
      receiveCompletion: receiveCompletion,
      receiveValue: receiveValue
    )
    subscribe(sink)
    return AnyCancellable(sink)
  }

  /// Subscribes with only a value closure, in the trailing-closure form of Conbini's README.
  ///
  /// ```swift
  /// let cancellable = upstream.sink(fixedDemand: 5) { value in print(value) }
  /// ```
  ///
  /// The same as `sink(fixedDemand:receiveCompletion:receiveValue:)` with no completion
  /// closure; without this overload the trailing closure would go to `receiveCompletion`.
  ///
  /// > Thread safety: The closure runs on the thread the publisher delivers on, one call at a
  /// > time. The returned token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - fixedDemand: As in `sink(fixedDemand:receiveCompletion:receiveValue:)`.
  ///   - receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  public func sink(
    fixedDemand: Int,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    sink(fixedDemand: fixedDemand, receiveCompletion: nil, receiveValue: receiveValue)
  }
}

/// The state of a ``StreamCore/Subscribers/FixedSink``.
private enum FixedSinkState {
  case awaitingSubscription
  case subscribed(any Subscription, remaining: Int)
  case closed
}

/// What ``StreamCore/Subscribers/FixedSink`` does with a value, decided under its lock.
private enum FixedSinkValueAction<Input, Failure: Error> {
  case ignore
  case deliver(((Input) -> Void)?)
  case deliverAndEnd(
    ((Input) -> Void)?,
    ((Subscribers.Completion<Failure>) -> Void)?,
    any Subscription
  )
}
