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
  // Sendable: all mutable state is in `state`, guarded by `lock`; upstream and downstream are
  // called outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let lock = Lock()
    /// See ``ReplacementState`` for the transitions.
    private var state: ReplacementState<Downstream, Output>

    init(downstream: Downstream, output: Output) {
      state = .awaitingSubscription(downstream, output, .emptyFinish)
    }

    func receive(subscription: any Subscription) {
      guard let accepted = lock.withLock({ state.subscribe(subscription) }) else {
        subscription.cancel()
        return
      }
      accepted.receive(subscription: self)
      // As Combine's: the upstream is asked for everything at once, besides the requests the
      // subscriber makes, which are passed on (OpenCombine's `ReplaceEmptyTests.testDemand`).
      // Not once the subscriber cancelled from inside `receive(subscription:)`.
      if lock.withLock({ state.isSubscribed }) { subscription.request(.unlimited) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let target = lock.withLock { state.receiveValue() }
      return target?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let isFailure = if case .failure = completion { true } else { false }
      let action = lock.withLock { state.receiveCompletion(isFailure: isFailure) }
      switch action {
      case .ignore, .hold:
        break  // what `.hold` released is dropped here, after the lock
      case .forward(let target, _):
        target.receive(completion: completion)
      case .replace(let target, let value, _):
        sendReplacement(value, to: target)
      }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      switch lock.withLock({ state.request(demand) }) {
      case .none:
        break
      case .request(let upstream):
        upstream.request(demand)
      case .replace(let target, let value):
        sendReplacement(value, to: target)
      }
    }

    /// Sends `value`, then `.finished` unless the subscriber cancelled while receiving it.
    private func sendReplacement(_ value: Output, to target: Downstream) {
      _ = target.receive(value)
      if lock.withLock({ state.finishReplacement() }) { target.receive(completion: .finished) }
    }

    func cancel() {
      let released = lock.withLock { state.cancel() }
      released.upstream?.cancel()
    }

    var description: String { "ReplaceEmpty" }

    var playgroundDescription: Any { description }
  }
}
