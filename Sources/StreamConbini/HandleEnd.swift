import FutureKit
import SignalOperators
public import StreamCore

extension Publisher {
  /// Runs a closure once when the stream ends: on completion, or on cancellation.
  ///
  /// ```swift
  /// let publisher = upstream.handleEnd { completion in
  ///   switch completion {
  ///   case .none: print("cancelled")
  ///   case .finished: print("finished")
  ///   case .failure(let error): print("failed:", error)
  ///   }
  /// }
  /// ```
  ///
  /// The closure runs exactly once per subscription. On completion it runs before the completion
  /// goes downstream, with that completion. On `cancel()` it runs with `nil`, before the upstream
  /// is cancelled; also with `nil` when the subscription is released without having ended.
  /// Values and demand pass through unchanged (1:1).
  ///
  /// > Thread safety: The closure runs on the thread that completes or cancels, with no lock
  /// > held. `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter handle: Runs once, with the completion or `nil` on cancellation.
  /// - Returns: A publisher that reports the end of each subscription.
  public func handleEnd(
    _ handle: @escaping (_ completion: Subscribers.Completion<Failure>?) -> Void
  ) -> Publishers.HandleEnd<Self> {
    Publishers.HandleEnd(upstream: self, handle: handle)
  }
}

extension Publishers {
  /// A publisher that runs a closure once when a subscription ends; see
  /// `handleEnd(_:)`.
  ///
  /// ```swift
  /// let publisher = Publishers.HandleEnd(upstream: [1, 2].publisher) { print("end:", $0 as Any) }
  /// ```
  ///
  /// The closure runs exactly once per subscription, before the completion goes downstream, or
  /// with `nil` on cancel or release. Its subscription's description is `"HandleEnd"`.
  ///
  /// > Thread safety: The closure is called with no lock held; `request(_:)` and `cancel()` are
  /// > safe from any thread.
  public struct HandleEnd<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher this one forwards.
    public let upstream: Upstream

    /// Runs once per subscription with the completion, or `nil` on cancellation.
    public let closure: (Subscribers.Completion<Failure>?) -> Void

    /// Creates a publisher that runs `handle` once when each subscription ends.
    ///
    /// ```swift
    /// let publisher = Publishers.HandleEnd(upstream: source) { _ in cleanUp() }
    /// ```
    ///
    /// - Parameters:
    ///   - upstream: The publisher to forward.
    ///   - handle: Runs once, with the completion or `nil` on cancellation.
    public init(
      upstream: Upstream,
      handle: @escaping (_ completion: Subscribers.Completion<Failure>?) -> Void
    ) {
      self.upstream = upstream
      self.closure = handle
    }

    /// Subscribes `subscriber` through a conduit that reports the end.
    ///
    /// - Parameter subscriber: The subscriber to attach to this publisher.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, closure: closure))
    }
  }
}

extension Publishers.HandleEnd {
  // The closure is taken out of the state under the lock, so it runs once, outside the lock.
  // Sendable: mutable state is guarded by `lock`; closure, downstream, upstream run outside it.
  private final class Inner<Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    /// ```
    /// awaitingSubscription --receive(subscription:)--> active
    /// active --receive(completion:) / cancel()--> terminal (closure and both ends released)
    /// ```
    private enum State {
      case awaitingSubscription
      case active(any Subscription)
      case terminal
    }

    private typealias Handler = (Subscribers.Completion<Failure>?) -> Void

    private let lock = Lock()
    private var state = State.awaitingSubscription
    private var downstream: Downstream?
    private var closure: Handler?

    init(
      downstream: Downstream,
      closure: @escaping (Subscribers.Completion<Failure>?) -> Void
    ) {
      self.downstream = downstream
      self.closure = closure
    }

    deinit {
      // Released without completion or cancel: nobody else can reach `self` any more.
      closure?(nil)
    }

    var description: String { "HandleEnd" }

    /// The `downstream` (`nil` once released), whether it has `finished`, and the
    /// `upstreamSubscription`.
    var customMirror: Mirror {
      let (target, upstream, finished) = lock.withLock {
        () -> (Downstream?, (any Subscription)?, Bool) in
        switch self.state {
        case .awaitingSubscription: (self.downstream, nil, false)
        case .active(let upstream): (self.downstream, upstream, false)
        case .terminal: (nil, nil, true)
        }
      }
      return oneToOneMirror(self, downstream: target, finished: finished, upstream: upstream)
    }

    var playgroundDescription: Any { description }

    func receive(subscription: any Subscription) {
      let target = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = state else { return nil }
        state = .active(subscription)
        return downstream
      }
      guard let target else {
        subscription.cancel()
        return
      }
      target.receive(subscription: self)
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      let target = lock.withLock { () -> Downstream? in
        guard case .active = state else { return nil }
        return downstream
      }
      return target?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // The upstream subscription is released after the lock, with the rest.
      let ended = lock.withLock { () -> (Downstream?, Handler?, any Subscription)? in
        switch state {
        case .awaitingSubscription:
          preconditionFailure("HandleEnd: completion received while awaitingSubscription")
        case .terminal:
          return nil
        case .active(let upstream):
          state = .terminal
          defer {
            downstream = nil
            closure = nil
          }
          return (downstream, closure, upstream)
        }
      }
      guard let (target, handle, _) = ended else { return }
      handle?(completion)
      target?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let upstream = lock.withLock { () -> (any Subscription)? in
        guard case .active(let upstream) = state else { return nil }
        return upstream
      }
      upstream?.request(demand)
    }

    func cancel() {
      let ended = lock.withLock { () -> (any Subscription, Downstream?, Handler?)? in
        guard case .active(let upstream) = state else { return nil }
        state = .terminal
        defer {
          downstream = nil
          closure = nil
        }
        return (upstream, downstream, closure)
      }
      guard let (upstream, target, handle) = ended else { return }
      handle?(nil)
      upstream.cancel()
      _ = target  // released after the lock
    }
  }
}
