public import StreamCore

extension Publisher {
  /// Publishes `output` if the upstream finishes without publishing anything.
  ///
  /// ```swift
  /// searchResults
  ///   .replaceEmpty(with: [])
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { show($0) })
  /// ```
  ///
  /// Demand goes to the upstream as the subscriber requests it. When the upstream finishes
  /// without a value, `output` goes out followed by `.finished` — at once if the subscriber has
  /// requested anything, otherwise on its first request. A failure passes through as is.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread. The replacement is
  /// > delivered on the thread that finished the upstream or on the thread that requested it.
  ///
  /// - Parameter output: The value to publish when the upstream is empty.
  /// - Returns: A publisher that is never empty unless it fails.
  public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
    Publishers.ReplaceEmpty(upstream: self, output: output)
  }
}

extension Publishers {
  /// A publisher that publishes a value if its upstream finishes empty.
  ///
  /// ```swift
  /// let atLeastOne = Publishers.ReplaceEmpty(upstream: results, output: [])
  /// ```
  ///
  /// See ``StreamCore/Publisher/replaceEmpty(with:)``. Its subscription's description is
  /// `"ReplaceEmpty"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher that may finish empty.
    public let upstream: Upstream

    /// The value published if the upstream finishes without a value.
    public let output: Upstream.Output

    /// Creates a publisher that publishes `output` if `upstream` finishes empty.
    ///
    /// - Parameters:
    ///   - upstream: The publisher that may finish empty.
    ///   - output: The value to publish in that case.
    public init(upstream: Upstream, output: Output) {
      self.upstream = upstream
      self.output = output
    }

    /// Subscribes `subscriber` to the upstream through a `"ReplaceEmpty"` subscription.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.receive(subscriber: Inner(downstream: subscriber, output: output))
    }
  }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Output: Equatable {}

extension Publishers.ReplaceEmpty: Sendable where Upstream: Sendable, Output: Sendable {}

extension Publishers.ReplaceEmpty {
  // Sendable: all mutable state is guarded by `lock`; upstream and downstream are called
  // outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    /// ```
    /// awaitingSubscription --receive(subscription:)--> active
    /// active --finished empty, nothing requested yet--> holding
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

    private enum CompletionAction {
      case none
      case forward(Subscribers.Completion<Failure>)
      case replace
    }

    private let lock = Lock()
    private var status = Status.awaitingSubscription
    private var downstream: Downstream?
    private var output: Output?
    private var requested = false
    private var receivedValue = false

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
        guard case .active = status else { return nil }
        receivedValue = true
        return downstream
      }
      return target?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let (action, target, value, upstream) = lock.withLock {
        () -> (CompletionAction, Downstream?, Output?, (any Subscription)?) in
        guard case .active(let upstream) = status else { return (.none, nil, nil, nil) }
        if case .finished = completion, !receivedValue {
          guard requested else {
            status = .holding
            return (.none, nil, nil, upstream)
          }
          status = .replacing
          return (.replace, downstream.take(), output.take(), upstream)
        }
        status = .terminal
        return (.forward(completion), downstream.take(), output.take(), upstream)
      }
      _ = upstream  // released after the lock
      guard let target else { return }
      switch action {
      case .none:
        break
      case .forward(let completion):
        target.receive(completion: completion)
      case .replace:
        sendReplacement(value, to: target)
      }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let (upstream, target, value) = lock.withLock {
        () -> ((any Subscription)?, Downstream?, Output?) in
        requested = true
        switch status {
        case .active(let upstream):
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

    var description: String { "ReplaceEmpty" }

    var playgroundDescription: Any { description }
  }
}
