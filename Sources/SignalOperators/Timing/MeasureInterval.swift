public import StreamCore

extension Publisher {
  /// Publishes the time between successive upstream values, measured on `scheduler`'s clock.
  ///
  /// ```swift
  /// keyPresses
  ///   .measureInterval(using: DispatchQueue.main)
  ///   .sink { print("typed after \($0)") }
  /// ```
  ///
  /// The first value publishes the time since the subscription; each next one the time since
  /// the value before it. The upstream's values are replaced by strides, the completion passes
  /// through, and demand passes both ways unchanged. Nothing is scheduled: each stride is
  /// delivered on the thread that sent the value.
  ///
  /// > Thread safety: Upstream may send from any thread, one value at a time. `request(_:)` and
  /// > `cancel()` are safe from any thread; nothing is delivered after `cancel()` returns.
  ///
  /// - Parameters:
  ///   - scheduler: The scheduler whose `now` is read.
  ///   - options: Accepted for Combine compatibility; unused, since nothing is scheduled.
  /// - Returns: A publisher of the intervals between upstream values.
  public func measureInterval<S: Scheduler>(
    using scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.MeasureInterval<Self, S> {
    Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
  }
}

extension Publishers {
  /// A publisher of the time between its upstream's values.
  ///
  /// ```swift
  /// let gaps = Publishers.MeasureInterval(upstream: taps, scheduler: DispatchQueue.main)
  /// ```
  ///
  /// See ``StreamCore/Publisher/measureInterval(using:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Context.SchedulerTimeType.Stride
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are timed.
    public let upstream: Upstream

    /// The scheduler whose clock is read.
    public let scheduler: Context

    /// Creates a publisher of the intervals between `upstream`'s values.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are timed.
    ///   - scheduler: The scheduler whose clock is read.
    public init(upstream: Upstream, scheduler: Context) {
      self.upstream = upstream
      self.scheduler = scheduler
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, scheduler: scheduler))
    }
  }
}

extension Publishers.MeasureInterval: Sendable where Upstream: Sendable {}

extension Publishers.MeasureInterval {
  /// ```
  /// awaitingSubscription --receive(subscription:)--> active (clock read)
  /// active --receive(_:)--> active (stride sent, clock read)
  /// any --completion / cancel()--> terminal
  /// ```
  // Sendable: mutable state is guarded by `lock`; the downstream and upstream are called
  // outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Upstream.Output
    typealias Time = Context.SchedulerTimeType

    private enum Phase {
      case awaitingSubscription
      case active(any Subscription, last: Time)
      case terminal
    }

    private let lock = Lock()
    private var phase = Phase.awaitingSubscription
    private var downstream: Downstream?
    private let scheduler: Context

    init(downstream: Downstream, scheduler: Context) {
      self.downstream = downstream
      self.scheduler = scheduler
    }

    func receive(subscription: any Subscription) {
      let now = scheduler.now
      let downstream = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = phase, let downstream = self.downstream else {
          return nil
        }
        phase = .active(subscription, last: now)
        return downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      let now = scheduler.now
      let found = lock.withLock { () -> (Downstream, Time)? in
        guard case .active(let upstream, let last) = phase, let downstream else { return nil }
        phase = .active(upstream, last: now)
        return (downstream, last)
      }
      guard let (downstream, last) = found else { return .none }
      return downstream.receive(last.distance(to: now))
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // The upstream subscription is released after the lock.
      let released = lock.withLock { () -> (Downstream?, any Subscription)? in
        guard case .active(let upstream, _) = phase else { return nil }
        phase = .terminal
        return (self.downstream.take(), upstream)
      }
      released?.0?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let upstream = lock.withLock { () -> (any Subscription)? in
        guard case .active(let upstream, _) = phase else { return nil }
        return upstream
      }
      upstream?.request(demand)
    }

    func cancel() {
      let released = lock.withLock { () -> (Phase, Downstream?) in
        defer { phase = .terminal }
        return (phase, downstream.take())
      }
      guard case .active(let upstream, _) = released.0 else { return }
      upstream.cancel()
    }

    var description: String { "MeasureInterval" }

    var playgroundDescription: Any { description }
  }
}
