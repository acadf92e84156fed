import PropertyWrappers
import SignalOperators
public import StreamCore

extension Publisher {
  /// Passes a value only if at least `pause` has passed since the last value it passed, and drops
  /// the others (SwiftySignals' leading-edge `throttle(pause:)`).
  ///
  /// ```swift
  /// let cancellable = taps.throttle(pause: .seconds(1), scheduler: DispatchQueue.main)
  ///   .sink { submit($0) }
  /// ```
  ///
  /// The first value always passes. Dropped values are gone: nothing is delayed and there is no
  /// trailing value, unlike `throttle(for:scheduler:latest:)`, which publishes at the end of each
  /// interval. Time is read from `scheduler.now`; values are delivered on the upstream's thread.
  /// It is built on `filter`: a dropped value asks upstream for one more, and the subscription
  /// downstream sees is the one `filter` gives.
  ///
  /// <!-- marbles:throttle-pause -->
  /// Marble diagram of `throttle(pause: .nanoseconds(4), scheduler:)`, made by running it (a
  /// character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -abc----d-e--|
  /// output  -a------d----|
  /// ```
  ///
  /// ![Marble diagram of throttle(pause: .nanoseconds(4), scheduler:)](marble-throttle-pause)
  /// <!-- /marbles:throttle-pause -->
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameters:
  ///   - pause: The least time between two passed values.
  ///   - scheduler: The scheduler whose clock measures the pause.
  /// - Returns: A publisher that drops values arriving within `pause` of the last passed one.
  public func throttle<S: Scheduler>(
    pause: Duration,
    scheduler: S
  ) -> Publishers.ThrottlePause<Self, S> {
    Publishers.ThrottlePause(upstream: self, pause: .swiftyStride(pause), scheduler: scheduler)
  }
}

extension Publishers {
  /// A publisher that passes a value only if `pause` has passed since the last passed value; see
  /// `throttle(pause:scheduler:)`.
  ///
  /// ```swift
  /// let throttled = Publishers.ThrottlePause(upstream: taps, pause: .seconds(1), scheduler: queue)
  /// ```
  ///
  /// Each subscription keeps its own clock of the last passed value.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct ThrottlePause<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are throttled.
    public let upstream: Upstream
    /// The least time between two passed values.
    public let pause: Context.SchedulerTimeType.Stride
    /// The scheduler whose clock measures the pause.
    public let scheduler: Context

    /// Creates a leading-edge throttle.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are throttled.
    ///   - pause: The least time between two passed values.
    ///   - scheduler: The scheduler whose clock measures the pause.
    public init(upstream: Upstream, pause: Context.SchedulerTimeType.Stride, scheduler: Context) {
      self.upstream = upstream
      self.pause = pause
      self.scheduler = scheduler
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let lastPassed = LockedState<Context.SchedulerTimeType?>(nil)
      let pause = pause
      let scheduler = scheduler
      upstream.filter { _ in
        let now = scheduler.now
        return lastPassed.withLock { last in
          if let previous = last, previous.distance(to: now) < pause { return false }
          last = now
          return true
        }
      }
      .receive(subscriber: subscriber)
    }
  }
}
