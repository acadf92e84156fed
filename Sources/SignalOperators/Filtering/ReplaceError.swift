public import StreamCore

extension Publisher {
  /// Replaces an upstream failure with a value, then finishes.
  ///
  /// ```swift
  /// fetchAvatar
  ///   .replaceError(with: placeholder)
  ///   .sink { show($0) }
  /// ```
  ///
  /// Demand goes to the upstream as the subscriber requests it. When the upstream fails,
  /// `output` goes out followed by `.finished` — at once if the subscriber has demand left,
  /// otherwise on its next request.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread. The replacement is
  /// > delivered on the thread that failed the upstream or on the thread that requested it.
  ///
  /// - Parameter output: The value to publish in place of the error.
  /// - Returns: A publisher that never fails.
  public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
    Publishers.ReplaceError(upstream: self, output: output)
  }
}

extension Publishers {
  /// A publisher that replaces its upstream's failure with a value, then finishes.
  ///
  /// ```swift
  /// let safe = Publishers.ReplaceError(upstream: fetchAvatar, output: placeholder)
  /// ```
  ///
  /// See ``StreamCore/Publisher/replaceError(with:)``. Its subscription's description is
  /// `"ReplaceError"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct ReplaceError<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Never

    /// The publisher that may fail.
    public let upstream: Upstream

    /// The value published in place of the upstream's error.
    public let output: Upstream.Output

    /// Creates a publisher that publishes `output` in place of the failure of `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher that may fail.
    ///   - output: The value to publish in place of the error.
    public init(upstream: Upstream, output: Output) {
      self.upstream = upstream
      self.output = output
    }

    /// Subscribes `subscriber` to the upstream through a `"ReplaceError"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(subscriber: Inner(downstream: subscriber, output: output))
    }
  }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Output: Equatable {}

extension Publishers.ReplaceError: Sendable where Upstream: Sendable, Output: Sendable {}

extension Publishers.ReplaceError {
  // Sendable: all mutable state is guarded by `lock`; upstream and downstream are called
  // outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Never {
    typealias Input = Output
    typealias Failure = Upstream.Failure

    /// ```
    /// awaitingSubscription --receive(subscription:)--> active
    /// active --failure without demand--> holding
    /// active --completion / cancel()--> terminal
    /// active / holding --replacement due--> replacing --output sent--> terminal (sends .finished)
    /// holding / replacing --cancel()--> terminal
    /// ```
    private enum Status {
      case awaitingSubscription
      case active(any Subscription)
      case holding
      /// The replacement is being sent; `.finished` follows unless cancelled meanwhile.
      case replacing
      case terminal
    }

    private let lock = Lock()
    private var status = Status.awaitingSubscription
    private var downstream: Downstream?
    private var output: Output?
    /// Requested by the subscriber and not yet delivered.
    private var demand = Subscribers.Demand.none

    init(downstream: Downstream, output: Output) {
      self.downstream = downstream
      self.output = output
    }

    func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = status, let downstream else { return nil }
        status = .active(subscription)
        return downstream
      }
      guard let accepted else {
        subscription.cancel()
        return
      }
      accepted.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let target = lock.withLock { () -> Downstream? in
        guard case .active = status, demand > .none else { return nil }
        demand -= 1
        return downstream
      }
      guard let target else { return .none }
      let more = target.receive(input)
      guard more > .none else { return .none }
      lock.withLock { demand += more }
      return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let (target, value, upstream) = lock.withLock {
        () -> (Downstream?, Output?, (any Subscription)?) in
        guard case .active(let upstream) = status else { return (nil, nil, nil) }
        if case .failure = completion {
          guard demand > .none else {
            status = .holding
            return (nil, nil, upstream)
          }
          status = .replacing
          return (downstream.take(), output.take(), upstream)
        }
        status = .terminal
        return (downstream.take(), nil, upstream)
      }
      _ = upstream  // released after the lock
      guard let target else { return }
      guard case .failure = completion else {
        target.receive(completion: .finished)
        return
      }
      sendReplacement(value, to: target)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let (upstream, target, value) = lock.withLock {
        () -> ((any Subscription)?, Downstream?, Output?) in
        switch status {
        case .active(let upstream):
          self.demand += demand
          return (upstream, nil, nil)
        case .holding:
          status = .replacing
          return (nil, downstream.take(), output.take())
        case .awaitingSubscription, .replacing, .terminal:
          return (nil, nil, nil)
        }
      }
      upstream?.request(demand)
      guard let target else { return }
      sendReplacement(value, to: target)
    }

    /// Sends `value`, then `.finished` unless the subscriber cancelled while receiving it.
    private func sendReplacement(_ value: Output?, to target: Downstream) {
      if let value { _ = target.receive(value) }
      let finish = lock.withLock { () -> Bool in
        guard case .replacing = status else { return false }
        status = .terminal
        return true
      }
      if finish { target.receive(completion: .finished) }
    }

    func cancel() {
      let released = lock.withLock { () -> ((any Subscription)?, Downstream?, Output?) in
        defer { status = .terminal }
        guard case .active(let upstream) = status else {
          return (nil, downstream.take(), output.take())
        }
        return (upstream, downstream.take(), output.take())
      }
      released.0?.cancel()
    }

    var description: String { "ReplaceError" }

    var playgroundDescription: Any { description }
  }
}
