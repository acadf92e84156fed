public import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes, for each value of this publisher, `resultSelector` of that value and the latest
  /// value of `other`.
  ///
  /// ```swift
  /// let taps = PassthroughSubject<Void, Never>()
  /// let text = PassthroughSubject<String, Never>()
  /// let cancellable = taps.withLatestFrom(text) { _, text in text.count }.sink { print($0) }
  /// taps.send(())       // nothing: text has no value yet
  /// text.send("Swift")
  /// taps.send(())       // prints 5
  /// ```
  ///
  /// As in CombineExt, `other` is subscribed first, and this publisher only once `other` has
  /// sent a value, so each of its values finds one; the subscriber's requests wait until then,
  /// and go to this publisher after. `other` is asked for `.unlimited` and only its latest value
  /// is kept. The publisher finishes when this publisher completes; it fails when either fails,
  /// cancelling the other. `other` finishing ends nothing, its last value goes on being used;
  /// but if it finishes without having sent one, the publisher finishes.
  ///
  /// <!-- marbles:with-latest-from -->
  /// Marble diagram of `withLatestFrom(other) { $0 + $1 }`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a---b---c-|
  /// other   --1---2-3--|
  /// output  -----x---y-|
  ///         x = (b, 1), y = (c, 3)
  /// ```
  ///
  /// ![Marble diagram of withLatestFrom(other) { $0 + $1 }](marble-with-latest-from)
  /// <!-- /marbles:with-latest-from -->
  ///
  /// > Thread safety: This publisher and `other` may send from any threads at once; calls to the
  /// > subscriber never overlap, and `resultSelector` runs outside the operator's lock, on the
  /// > thread that delivers.
  ///
  /// - Parameters:
  ///   - other: The publisher whose latest value goes with each value of this one.
  ///   - resultSelector: Combines a value of this publisher with the latest value of `other`.
  /// - Returns: A publisher of the combined values.
  @inlinable
  public func withLatestFrom<Other: Publisher, Result>(
    _ other: Other,
    resultSelector: @escaping (Output, Other.Output) -> Result
  ) -> Publishers.WithLatestFrom<Self, Other, Result> {
    Publishers.WithLatestFrom(upstream: self, second: other, resultSelector: resultSelector)
  }

  /// Publishes, for each value of this publisher, `resultSelector` of that value and the latest
  /// values of `other` and `other1`.
  ///
  /// ```swift
  /// let cancellable = saves.withLatestFrom(title, body) { _, fields in Draft(fields.0, fields.1) }
  ///   .sink { store($0) }
  /// ```
  ///
  /// `other` and `other1` are combined with `combineLatest` first, so a value of this publisher
  /// is published only once both have sent a value. Otherwise as
  /// ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)``.
  ///
  /// <!-- marbles:with-latest-from -->
  /// Marble diagram of `withLatestFrom(other) { $0 + $1 }`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a---b---c-|
  /// other   --1---2-3--|
  /// output  -----x---y-|
  ///         x = (b, 1), y = (c, 3)
  /// ```
  ///
  /// ![Marble diagram of withLatestFrom(other) { $0 + $1 }](marble-with-latest-from)
  /// <!-- /marbles:with-latest-from -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)``.
  ///
  /// - Parameters:
  ///   - other: A second publisher.
  ///   - other1: A third publisher.
  ///   - resultSelector: Combines a value of this publisher with the latest values of the others.
  /// - Returns: A publisher of the combined values.
  @inlinable
  public func withLatestFrom<Other: Publisher, Other1: Publisher, Result>(
    _ other: Other,
    _ other1: Other1,
    resultSelector: @escaping (Output, (Other.Output, Other1.Output)) -> Result
  ) -> Publishers.WithLatestFrom<Self, AnyPublisher<(Other.Output, Other1.Output), Failure>, Result>
  where Other.Failure == Failure, Other1.Failure == Failure {
    Publishers.WithLatestFrom(
      upstream: self,
      second: other.combineLatest(other1).eraseToAnyPublisher(),
      resultSelector: resultSelector
    )
  }

  /// Publishes, for each value of this publisher, `resultSelector` of that value and the latest
  /// values of `other`, `other1` and `other2`.
  ///
  /// ```swift
  /// let cancellable = ticks.withLatestFrom(x, y, z) { _, point in point }.sink { plot($0) }
  /// ```
  ///
  /// The three others are combined with `combineLatest` first, so a value of this publisher is
  /// published only once all three have sent a value. Otherwise as
  /// ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)``.
  ///
  /// <!-- marbles:with-latest-from -->
  /// Marble diagram of `withLatestFrom(other) { $0 + $1 }`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a---b---c-|
  /// other   --1---2-3--|
  /// output  -----x---y-|
  ///         x = (b, 1), y = (c, 3)
  /// ```
  ///
  /// ![Marble diagram of withLatestFrom(other) { $0 + $1 }](marble-with-latest-from)
  /// <!-- /marbles:with-latest-from -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)``.
  ///
  /// - Parameters:
  ///   - other: A second publisher.
  ///   - other1: A third publisher.
  ///   - other2: A fourth publisher.
  ///   - resultSelector: Combines a value of this publisher with the latest values of the others.
  /// - Returns: A publisher of the combined values.
  @inlinable
  public func withLatestFrom<Other: Publisher, Other1: Publisher, Other2: Publisher, Result>(
    _ other: Other,
    _ other1: Other1,
    _ other2: Other2,
    resultSelector: @escaping (Output, (Other.Output, Other1.Output, Other2.Output)) -> Result
  )
    -> Publishers.WithLatestFrom<
      Self, AnyPublisher<(Other.Output, Other1.Output, Other2.Output), Failure>, Result
    >
  where Other.Failure == Failure, Other1.Failure == Failure, Other2.Failure == Failure {
    Publishers.WithLatestFrom(
      upstream: self,
      second: other.combineLatest(other1, other2).eraseToAnyPublisher(),
      resultSelector: resultSelector
    )
  }

  /// Publishes, for each value of this publisher, the latest value of `other`.
  ///
  /// ```swift
  /// let cancellable = taps.withLatestFrom(text).sink { print($0) }
  /// text.send("Swift")
  /// taps.send(())       // prints Swift
  /// ```
  ///
  /// As ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)`` with a selector that keeps `other`'s value.
  ///
  /// <!-- marbles:with-latest-from -->
  /// Marble diagram of `withLatestFrom(other) { $0 + $1 }`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a---b---c-|
  /// other   --1---2-3--|
  /// output  -----x---y-|
  ///         x = (b, 1), y = (c, 3)
  /// ```
  ///
  /// ![Marble diagram of withLatestFrom(other) { $0 + $1 }](marble-with-latest-from)
  /// <!-- /marbles:with-latest-from -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)``.
  ///
  /// - Parameter other: The publisher whose latest value is published.
  /// - Returns: A publisher of `other`'s latest value, once per value of this publisher.
  @inlinable
  public func withLatestFrom<Other: Publisher>(
    _ other: Other
  ) -> Publishers.WithLatestFrom<Self, Other, Other.Output> {
    Publishers.WithLatestFrom(upstream: self, second: other) { $1 }
  }

  /// Publishes, for each value of this publisher, the latest values of `other` and `other1`.
  ///
  /// ```swift
  /// let cancellable = saves.withLatestFrom(title, body).sink { title, body in store(title, body) }
  /// ```
  ///
  /// As ``StreamCore/Publisher/withLatestFrom(_:_:resultSelector:)`` with a selector that keeps the others' values.
  ///
  /// <!-- marbles:with-latest-from -->
  /// Marble diagram of `withLatestFrom(other) { $0 + $1 }`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a---b---c-|
  /// other   --1---2-3--|
  /// output  -----x---y-|
  ///         x = (b, 1), y = (c, 3)
  /// ```
  ///
  /// ![Marble diagram of withLatestFrom(other) { $0 + $1 }](marble-with-latest-from)
  /// <!-- /marbles:with-latest-from -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)``.
  ///
  /// - Parameters:
  ///   - other: A second publisher.
  ///   - other1: A third publisher.
  /// - Returns: A publisher of the others' latest values, once per value of this publisher.
  @inlinable
  public func withLatestFrom<Other: Publisher, Other1: Publisher>(
    _ other: Other,
    _ other1: Other1
  )
    -> Publishers.WithLatestFrom<
      Self, AnyPublisher<(Other.Output, Other1.Output), Failure>, (Other.Output, Other1.Output)
    >
  where Other.Failure == Failure, Other1.Failure == Failure {
    withLatestFrom(other, other1) { $1 }
  }

  /// Publishes, for each value of this publisher, the latest values of `other`, `other1` and
  /// `other2`.
  ///
  /// ```swift
  /// let cancellable = ticks.withLatestFrom(x, y, z).sink { x, y, z in plot(x, y, z) }
  /// ```
  ///
  /// As ``StreamCore/Publisher/withLatestFrom(_:_:_:resultSelector:)`` with a selector that keeps the others' values.
  ///
  /// <!-- marbles:with-latest-from -->
  /// Marble diagram of `withLatestFrom(other) { $0 + $1 }`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a---b---c-|
  /// other   --1---2-3--|
  /// output  -----x---y-|
  ///         x = (b, 1), y = (c, 3)
  /// ```
  ///
  /// ![Marble diagram of withLatestFrom(other) { $0 + $1 }](marble-with-latest-from)
  /// <!-- /marbles:with-latest-from -->
  ///
  /// > Thread safety: As ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)``.
  ///
  /// - Parameters:
  ///   - other: A second publisher.
  ///   - other1: A third publisher.
  ///   - other2: A fourth publisher.
  /// - Returns: A publisher of the others' latest values, once per value of this publisher.
  @inlinable
  public func withLatestFrom<Other: Publisher, Other1: Publisher, Other2: Publisher>(
    _ other: Other,
    _ other1: Other1,
    _ other2: Other2
  )
    -> Publishers.WithLatestFrom<
      Self,
      AnyPublisher<(Other.Output, Other1.Output, Other2.Output), Failure>,
      (Other.Output, Other1.Output, Other2.Output)
    >
  where Other.Failure == Failure, Other1.Failure == Failure, Other2.Failure == Failure {
    withLatestFrom(other, other1, other2) { $1 }
  }
}

extension Publishers {
  /// A publisher that combines each value of its upstream with the latest value of a second
  /// publisher.
  ///
  /// ```swift
  /// let latest = Publishers.WithLatestFrom(upstream: taps, second: text) { _, text in text }
  /// ```
  ///
  /// Made by ``StreamCore/Publisher/withLatestFrom(_:resultSelector:)`` and its overloads, which
  /// describe its behaviour. The subscription is described as `"WithLatestFrom"`.
  ///
  /// > Thread safety: The upstream and `second` may send from any threads at once; calls to the
  /// > subscriber never overlap.
  public struct WithLatestFrom<Upstream: Publisher, Other: Publisher, Output>: Publisher
  where Upstream.Failure == Other.Failure {
    public typealias Failure = Upstream.Failure
    /// Combines a value of the upstream with the latest value of `second`.
    public typealias ResultSelector = (Upstream.Output, Other.Output) -> Output

    /// The publisher whose values are published, each combined with `second`'s latest.
    public let upstream: Upstream
    /// The publisher whose latest value goes with each upstream value.
    public let second: Other
    /// Combines an upstream value with `second`'s latest value.
    public let resultSelector: ResultSelector

    /// Creates a publisher that combines each value of `upstream` with the latest of `second`.
    ///
    /// > Thread safety: A value type; the publisher may be subscribed from any thread.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are published.
    ///   - second: The publisher whose latest value goes with each upstream value.
    ///   - resultSelector: Combines an upstream value with `second`'s latest value.
    @inlinable
    public init(
      upstream: Upstream,
      second: Other,
      resultSelector: @escaping ResultSelector
    ) {
      self.upstream = upstream
      self.second = second
      self.resultSelector = resultSelector
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = WithLatestFromInner<Upstream.Output, Other.Output, S>(
        downstream: subscriber,
        upstream: upstream,
        resultSelector: resultSelector
      )
      subscriber.receive(subscription: inner)
      // The upstream is subscribed at `second`'s first value, as in CombineExt, so that every
      // upstream value finds a latest one.
      second.subscribe(WithLatestFromSide(inner: inner))
    }
  }
}

/// The subscriber to `second` of a `withLatestFrom`: forwards everything to the subscription.
@usableFromInline
struct WithLatestFromSide<UpstreamOutput, Latest, Downstream: Subscriber>: Subscriber {
  @usableFromInline typealias Input = Latest
  @usableFromInline typealias Failure = Downstream.Failure

  @usableFromInline let inner: WithLatestFromInner<UpstreamOutput, Latest, Downstream>
  @usableFromInline let combineIdentifier = CombineIdentifier()

  @inlinable init(inner: WithLatestFromInner<UpstreamOutput, Latest, Downstream>) {
    self.inner = inner
  }

  @inlinable func receive(subscription: any Subscription) {
    inner.otherReceive(subscription: subscription)
  }

  @inlinable func receive(_ input: Latest) -> Subscribers.Demand {
    inner.otherReceive(input)
    return .none
  }

  @inlinable func receive(completion: Subscribers.Completion<Downstream.Failure>) {
    inner.otherReceive(completion: completion)
  }
}

/// The subscription of `withLatestFrom`: subscriber of the upstream, with a side subscriber for
/// `second`. Upstream values go through a `DeliveryQueue` (with unlimited demand: the upstream
/// already keeps to the subscriber's demand), so that they never overlap a failure of `second`.
// Sendable: `state` is guarded by `lock`; the upstreams, the subscriber and the selector are
// called after it.
@usableFromInline
final class WithLatestFromInner<Input, Latest, Downstream: Subscriber>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
{
  @usableFromInline typealias Failure = Downstream.Failure
  @usableFromInline typealias State = WithLatestFromState<Downstream, Input, Latest>

  @usableFromInline let lock = Lock()
  @usableFromInline @exclusivity(unchecked) var state: State
  @usableFromInline let resultSelector: (Input, Latest) -> Downstream.Input

  @inlinable init<Upstream: Publisher>(
    downstream: Downstream,
    upstream: Upstream,
    resultSelector: @escaping (Input, Latest) -> Downstream.Input
  ) where Upstream.Output == Input, Upstream.Failure == Failure {
    state = .active(State.Active(downstream: downstream))
    self.resultSelector = resultSelector
    // Not shared yet: no lock needed. Weak, since the state that holds the closure is ours.
    state.install { [weak self] in
      guard let self else { return }
      upstream.subscribe(self)
    }
  }

  @inlinable var description: String { "WithLatestFrom" }

  /// The `downstream` (`nil` once released), the `upstreamSubscription`, the subscription to
  /// `second` (`otherSubscription`) and `second`'s `latest` value; the subscriptions and the
  /// latest value read `nil` once the completion is on its way.
  @usableFromInline var customMirror: Mirror {
    let (downstream, upstream, other, latest) = lock.withLock {
      () -> (Downstream?, (any Subscription)?, (any Subscription)?, Latest?) in
      switch state {
      case .active(let active): (active.downstream, active.upstream, active.other, active.latest)
      case .completing(let downstream, _): (downstream, nil, nil, nil)
      case .terminal: (nil, nil, nil, nil)
      }
    }
    return Mirror(
      self,
      children: [
        "downstream": downstream as Any, "upstreamSubscription": upstream as Any,
        "otherSubscription": other as Any, "latest": latest as Any,
      ]
    )
  }

  @usableFromInline var playgroundDescription: Any { description }

  // MARK: The upstream

  @inlinable func receive(subscription: any Subscription) {
    guard let demand = lock.withLock({ state.upstreamSubscribed(subscription) }) else {
      subscription.cancel()
      return
    }
    if demand > .none { subscription.request(demand) }
  }

  @inlinable func receive(_ input: Input) -> Subscribers.Demand {
    switch lock.withLock({ state.receive(input) }) {
    case .dropped: return .max(1)
    case .direct(let downstream, let latest):
      let more = downstream.receive(resultSelector(input, latest))
      if more > .none { lock.withLock { state.request(more) }?.request(more) }
      drain()
    case .claimed: drain()
    case .queued: break
    }
    return .none
  }

  @inlinable func receive(completion: Subscribers.Completion<Failure>) {
    finish(completion, fromUpstream: true)
  }

  // MARK: `second`

  @inlinable func otherReceive(subscription: any Subscription) {
    guard lock.withLock({ state.otherSubscribed(subscription) }) else {
      subscription.cancel()
      return
    }
    subscription.request(.unlimited)
  }

  @inlinable func otherReceive(_ input: Latest) {
    let received = lock.withLock { state.otherValue(input) }
    received.connect?()  // after the lock; the replaced value is released with `received`
  }

  @inlinable func otherReceive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      switch lock.withLock({ state.otherFinished() }) {
      case .goesOn(let released): _ = consume released
      case .ends: finish(.finished, fromUpstream: false)
      }
    case .failure:
      finish(completion, fromUpstream: false)
    }
  }

  // MARK: The subscriber

  @inlinable func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    lock.withLock { state.request(demand) }?.request(demand)
  }

  @inlinable func cancel() {
    let cancelled = lock.withLock { state.cancel() }
    cancelled.upstream?.cancel()
    cancelled.other?.cancel()
  }

  // MARK: Delivery

  @inlinable func finish(_ completion: Subscribers.Completion<Failure>, fromUpstream: Bool) {
    let finishing = lock.withLock { state.finish(completion, fromUpstream: fromUpstream) }
    finishing.cancel?.cancel()
    if finishing.claimed { drain() }
  }

  @inlinable func drain() {
    SerialDrain.run(lock) {
      state.nextStep()
    } perform: { step in
      switch consume step {
      case .value(let downstream, let input, let latest):
        let more = downstream.receive(resultSelector(input, latest))
        if more > .none { lock.withLock { state.request(more) }?.request(more) }
        return true
      case .completion(let downstream, let completion, let dropped):
        downstream.receive(completion: completion)
        _ = consume dropped
        return false
      }
    }
  }
}
