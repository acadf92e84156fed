import FutureKit
import SignalOperators
public import StreamCore

extension Subscribers {
  /// A subscriber that keeps a bounded number of values in flight, asking for one more per value.
  ///
  /// ```swift
  /// let sink = Subscribers.GraduatedSink<Int, Never>(
  ///   maxDemand: .max(2),
  ///   receiveCompletion: { print("done:", $0) },
  ///   receiveValue: { print($0) }
  /// )
  /// upstream.subscribe(sink)  // requests .max(2); each value returns .max(1)
  /// ```
  ///
  /// - On subscription it requests `maxDemand` once; each value it receives returns `.max(1)`,
  ///   so at most `maxDemand` values are requested and not yet delivered.
  /// - It takes one subscription; it cancels any further subscription it is given.
  /// - After the completion, or after ``cancel()``, it releases its subscription and both
  ///   closures, and ignores further values (returning `.none`) and completions. Unlike
  ///   Conbini, it checks its state before calling `receiveValue`.
  ///
  /// > Thread safety: The closures run on the thread the publisher delivers on, one call at a
  /// > time, with no lock held, so they may call ``cancel()``. ``cancel()`` may be called from
  /// > any thread.
  // Sendable: all mutable state is guarded by `lock`; the closures are only called by the
  // upstream publisher, which never calls a subscriber from two threads at once.
  public final class GraduatedSink<Input, Failure: Error>: Subscriber, Cancellable,
    CustomStringConvertible, @unchecked Sendable
  {
    /// The most values in flight at once, always greater than `.none`.
    public let maxDemand: Subscribers.Demand

    private let lock = Lock()
    private var state: GraduatedSinkState
    private var valueHandler: ((Input) -> Void)?
    private var completionHandler: ((Subscribers.Completion<Failure>) -> Void)?

    /// Creates a sink that keeps `maxDemand` values in flight.
    ///
    /// - Precondition: `maxDemand` is greater than `.none`.
    /// - Parameters:
    ///   - maxDemand: How many values to keep requested; must be greater than zero.
    ///   - receiveCompletion: The closure to execute on completion; `nil` (the default) for none.
    ///   - receiveValue: The closure to execute on receipt of a value; `nil` (the default) for
    ///     none.
    public init(
      maxDemand: Subscribers.Demand,
      receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
      receiveValue: ((Input) -> Void)? = nil
    ) {
      precondition(
        maxDemand > 0,
        "GraduatedSink: maxDemand must be greater than zero, got \(maxDemand)"
      )
      self.maxDemand = maxDemand
      self.state = .awaitingSubscription
      self.valueHandler = receiveValue
      self.completionHandler = receiveCompletion
    }

    /// Creates the sink with only a value closure, in the trailing-closure form of Conbini's
    /// README.
    ///
    /// ```swift
    /// let subscriber = Subscribers.GraduatedSink<Int, Never>(maxDemand: .max(3)) { value in print(value) }
    /// ```
    ///
    /// Without this overload the trailing closure would go to `receiveCompletion`, the first
    /// closure parameter.
    ///
    /// - Parameters:
    ///   - maxDemand: As in ``init(maxDemand:receiveCompletion:receiveValue:)``.
    ///   - receiveValue: The closure to execute on receipt of a value.
    public convenience init(maxDemand: Subscribers.Demand, receiveValue: @escaping (Input) -> Void)
    {
      self.init(maxDemand: maxDemand, receiveCompletion: nil, receiveValue: receiveValue)
    }

    /// The closure to execute on receipt of a value, or `nil` once the sink has ended.
    public var receiveValue: ((Input) -> Void)? {
      lock.withLock { valueHandler }
    }

    /// The closure to execute on completion, or `nil` once the sink has ended.
    public var receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? {
      lock.withLock { completionHandler }
    }

    /// Keeps the first subscription and requests `maxDemand`; cancels any later one.
    public func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard case .awaitingSubscription = state else { return false }
        state = .subscribed(subscription)
        return true
      }
      if accepted {
        subscription.request(maxDemand)
      } else {
        subscription.cancel()
      }
    }

    /// Calls `receiveValue` and asks for one more value.
    public func receive(_ input: Input) -> Subscribers.Demand {
      // `nil` outside `.subscribed`; an inner `nil` when the sink has no value closure.
      let handler = lock.withLock { () -> ((Input) -> Void)?? in
        guard case .subscribed = state else { return nil }
        return .some(valueHandler)
      }
      guard let handler else { return .none }
      handler?(input)
      let stillSubscribed = lock.withLock { () -> Bool in
        if case .subscribed = state { return true }
        return false
      }
      return stillSubscribed ? .max(1) : .none
    }

    /// Releases the subscription and calls `receiveCompletion`, unless the sink has ended.
    public func receive(completion: Subscribers.Completion<Failure>) {
      // Everything is moved out and released after the lock: a closure's captures may cancel
      // this sink from their deinit.
      let released = lock.withLock {
        () -> (
          GraduatedSinkState, ((Input) -> Void)?, ((Subscribers.Completion<Failure>) -> Void)?
        )? in
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
        () -> (GraduatedSinkState, ((Input) -> Void)?, ((Subscribers.Completion<Failure>) -> Void)?)
        in
        defer {
          state = .closed
          valueHandler = nil
          completionHandler = nil
        }
        return (state, valueHandler, completionHandler)
      }
      if case .subscribed(let subscription) = released {
        subscription.cancel()
      }
    }

    /// `"GraduatedSink"`.
    public var description: String { "GraduatedSink" }
  }
}

extension Publisher {
  /// Attaches a subscriber that keeps `maxDemand` values in flight, asking for one more per value.
  ///
  /// ```swift
  /// let cancellable = events.sink(
  ///   maxDemand: .max(4),
  ///   receiveCompletion: { print("completion:", $0) },
  ///   receiveValue: { handle($0) }
  /// )
  /// ```
  ///
  /// Requests `maxDemand` on subscription and `.max(1)` after each value, so the upstream never
  /// has more than `maxDemand` values requested and undelivered. Keep the returned token: the
  /// subscription is cancelled when it is deinitialised. See ``StreamCore/Subscribers/GraduatedSink``.
  ///
  /// > Thread safety: The closures run on the thread the publisher delivers on, one call at a
  /// > time. The returned token may be cancelled from any thread.
  ///
  /// - Precondition: `maxDemand` is greater than `.none`.
  /// - Parameters:
  ///   - maxDemand: How many values to keep requested; must be greater than zero.
  ///   - receiveCompletion: The closure to execute on completion; `nil` (the default) for none.
  ///   - receiveValue: The closure to execute on receipt of a value; `nil` (the default) for
  ///     none.
  /// - Returns: A cancellable that cancels the subscription.
  public func sink(
    maxDemand: Subscribers.Demand,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
    receiveValue: ((Output) -> Void)? = nil
  ) -> AnyCancellable {
    let sink = Subscribers.GraduatedSink<Output, Failure>(
      maxDemand: maxDemand,
      receiveCompletion: receiveCompletion,
      receiveValue: receiveValue
    )
    subscribe(sink)
    return AnyCancellable(sink)
  }

  /// Subscribes with only a value closure, in the trailing-closure form of Conbini's README.
  ///
  /// ```swift
  /// let cancellable = upstream.sink(maxDemand: .max(3)) { value in print(value) }
  /// ```
  ///
  /// The same as `sink(maxDemand:receiveCompletion:receiveValue:)` with no completion
  /// closure; without this overload the trailing closure would go to `receiveCompletion`.
  ///
  /// > Thread safety: The closure runs on the thread the publisher delivers on, one call at a
  /// > time. The returned token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - maxDemand: As in `sink(maxDemand:receiveCompletion:receiveValue:)`.
  ///   - receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  public func sink(
    maxDemand: Subscribers.Demand,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    sink(maxDemand: maxDemand, receiveCompletion: nil, receiveValue: receiveValue)
  }
}

/// The state of a ``StreamCore/Subscribers/GraduatedSink``.
private enum GraduatedSinkState {
  case awaitingSubscription
  case subscribed(any Subscription)
  case closed
}
