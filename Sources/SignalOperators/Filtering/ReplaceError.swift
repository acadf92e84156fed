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
  /// otherwise on its next request. An upstream that sends a value the subscriber has not
  /// requested breaks the contract; as in Combine, that traps.
  ///
  /// <!-- marbles:replace-error -->
  /// Marble diagram of `replaceError(with: "z")`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-b-#
  /// output  -a-b-(z|)
  /// ```
  ///
  /// ![Marble diagram of replaceError(with: "z")](marble-replace-error)
  /// <!-- /marbles:replace-error -->
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
  // Sendable: all mutable state is in `state`, guarded by `lock`; upstream and downstream are
  // called outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, ChildlessReflection, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Never {
    typealias Input = Output
    typealias Failure = Upstream.Failure

    private let lock = Lock()
    /// See ``ReplacementState`` for the transitions.
    private var state: ReplacementState<Downstream, Output>

    init(downstream: Downstream, output: Output) {
      state = .awaitingSubscription(downstream, output, .failure)
    }

    func receive(subscription: any Subscription) {
      guard let accepted = lock.withLock({ state.subscribe(subscription) }) else {
        subscription.cancel()
        return
      }
      accepted.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let (target, exceeds) = lock.withLock { () -> (Downstream?, Bool) in
        state.valueExceedsDemand ? (nil, true) : (state.receiveValue(), false)
      }
      if exceeds { trapValueBeyondDemand("ReplaceError") }  // as Combine
      guard let target else { return .none }
      let more = target.receive(input)
      guard more > .none else { return .none }
      lock.withLock { state.addDemand(more) }
      return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let isFailure = if case .failure = completion { true } else { false }
      let action = lock.withLock { state.receiveCompletion(isFailure: isFailure) }
      switch action {
      case .ignore, .hold:
        break  // what `.hold` released is dropped here, after the lock
      case .forward(let target, _):
        target.receive(completion: .finished)
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

    var description: String { "ReplaceError" }

    var playgroundDescription: Any { description }
  }
}
