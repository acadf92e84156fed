public import StreamCore

extension Publisher {
  /// Drops values until `publisher` emits a value, then publishes every value.
  ///
  /// ```swift
  /// let start = PassthroughSubject<Void, Never>()
  /// let cancellable = ticks.drop(untilOutputFrom: start).sink { print($0) }
  /// start.send()  // from now on ticks are printed
  /// ```
  ///
  /// The downstream gets its subscription first; then `publisher` is subscribed, with a demand of
  /// one, and then the upstream. Values that arrive before `publisher` emits are dropped, and each
  /// asks the upstream for one more. After its first value `publisher` is cancelled. If
  /// `publisher` completes before emitting, finished or failed, the upstream is cancelled and
  /// that completion goes downstream, as in Combine.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/DropUntilOutput``.
  ///
  /// - Parameter publisher: The publisher whose first value starts the flow.
  /// - Returns: A publisher that drops values until `publisher` emits.
  public func drop<P: Publisher>(
    untilOutputFrom publisher: P
  ) -> Publishers.DropUntilOutput<Self, P> where Failure == P.Failure {
    Publishers.DropUntilOutput(upstream: self, other: publisher)
  }
}

extension Publishers {
  /// A publisher that drops the upstream's values until another publisher emits.
  ///
  /// ```swift
  /// let afterStart = Publishers.DropUntilOutput(upstream: ticks, other: start)
  /// ```
  ///
  /// See ``StreamCore/Publisher/drop(untilOutputFrom:)``. The subscription's description is
  /// `"DropUntilOutput"`.
  ///
  /// > Thread safety: The upstream and the other publisher may send from different threads at
  /// > once. A value that arrives after the other's value has been seen is passed; one that
  /// > arrives before is dropped. Values are delivered on the upstream's thread; a completion of
  /// > the other publisher before its first value is delivered on its thread. `request(_:)` and
  /// > `cancel()` are safe from any thread.
  public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
  where Upstream.Failure == Other.Failure {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are dropped until `other` emits.
    public let upstream: Upstream

    /// The publisher whose first value starts the flow.
    public let other: Other

    /// Creates a publisher that drops the upstream's values until `other` emits.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are dropped until `other` emits.
    ///   - other: The publisher whose first value starts the flow.
    public init(upstream: Upstream, other: Other) {
      self.upstream = upstream
      self.other = other
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = Inner(downstream: subscriber)
      subscriber.receive(subscription: inner)
      other.subscribe(Inner.Side(inner: inner))
      upstream.subscribe(inner)
    }
  }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.DropUntilOutput: Sendable where Upstream: Sendable, Other: Sendable {}

extension Publishers.DropUntilOutput {
  // Sendable: all mutable state is guarded by `lock`; calls out happen after it is released.
  // Values go downstream only once triggered, and the other's completion only before, so the
  // two threads never call the downstream at once.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    /// ```
    /// dropping --other's first value--> passing       (other cancelled)
    /// dropping --other completes--> terminal          (upstream cancelled, completion sent)
    /// dropping / passing --upstream completes, cancel()--> terminal
    /// ```
    private let lock = Lock()
    /// `nil` once terminal.
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private var other: (any Subscription)?
    /// Demand requested before the upstream's subscription arrived.
    private var pending = Subscribers.Demand.none
    private var triggered = false

    init(downstream: Downstream) {
      self.downstream = downstream
    }

    func receive(subscription: any Subscription) {
      let demand = lock.withLock { () -> Subscribers.Demand? in
        guard downstream != nil, upstream == nil else { return nil }
        upstream = subscription
        defer { pending = .none }
        return pending
      }
      guard let demand else { return subscription.cancel() }
      if demand > .none { subscription.request(demand) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let target = lock.withLock { () -> Downstream?? in
        guard let downstream else { return .none }  // terminal: ignore
        return triggered ? downstream : .some(nil)  // .some(nil): drop
      }
      switch target {
      case .some(.some(let downstream)): return downstream.receive(input)
      case .some(.none): return .max(1)
      case .none: return .none
      }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let released = release() else { return }
      released.other?.cancel()
      released.downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let target = lock.withLock { () -> (any Subscription)? in
        guard downstream != nil else { return nil }
        if upstream == nil { pending += demand }
        return upstream
      }
      target?.request(demand)
    }

    func cancel() {
      guard let released = release() else { return }
      released.upstream?.cancel()
      released.other?.cancel()
    }

    private func release() -> (
      downstream: Downstream, upstream: (any Subscription)?, other: (any Subscription)?
    )? {
      lock.withLock {
        guard let downstream = downstream.take() else { return nil }
        return (downstream, upstream.take(), other.take())
      }
    }

    fileprivate func receiveOther(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard downstream != nil, !triggered, other == nil else { return false }
        other = subscription
        return true
      }
      guard accepted else { return subscription.cancel() }
      subscription.request(.max(1))
    }

    fileprivate func receiveOther() -> Subscribers.Demand {
      let done = lock.withLock { () -> (any Subscription)? in
        guard downstream != nil, !triggered else { return nil }
        triggered = true
        return other.take()
      }
      done?.cancel()
      return .none
    }

    fileprivate func receiveOther(completion: Subscribers.Completion<Failure>) {
      // The other publisher's subscription is released after the lock.
      var finishedOther: (any Subscription)?
      let released = lock.withLock { () -> (Downstream, (any Subscription)?)? in
        finishedOther = other.take()
        guard !triggered, let downstream = downstream.take() else { return nil }
        return (downstream, upstream.take())
      }
      _ = finishedOther
      guard let (downstream, upstream) = released else { return }
      upstream?.cancel()
      downstream.receive(completion: completion)
    }

    var description: String { "DropUntilOutput" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }

    /// Subscribes to the other publisher on behalf of `inner`.
    struct Side: Subscriber, CustomStringConvertible, CustomReflectable,
      CustomPlaygroundDisplayConvertible
    {
      typealias Input = Other.Output
      typealias Failure = Other.Failure

      let inner: Inner

      let combineIdentifier = CombineIdentifier()

      func receive(subscription: any Subscription) {
        inner.receiveOther(subscription: subscription)
      }

      func receive(_ input: Other.Output) -> Subscribers.Demand {
        inner.receiveOther()
      }

      func receive(completion: Subscribers.Completion<Other.Failure>) {
        inner.receiveOther(completion: completion)
      }

      var description: String { "DropUntilOutput" }

      var customMirror: Mirror { Mirror(self, children: [:]) }

      var playgroundDescription: Any { description }
    }
  }
}
