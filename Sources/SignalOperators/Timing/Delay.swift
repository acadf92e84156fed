public import StreamCore

extension Publisher {
  /// Delivers each value and the completion `interval` later, on `scheduler`.
  ///
  /// ```swift
  /// taps
  ///   .delay(for: .milliseconds(300), scheduler: DispatchQueue.main)
  ///   .sink { showRipple(at: $0) }
  /// ```
  ///
  /// As Combine's, `receive(on:)` with each event scheduled for `interval` after it arrived;
  /// events go downstream in the order they arrived. Requests pass straight to the upstream, and
  /// demand the subscriber returns from `receive(_:)` is requested from the upstream, also for a
  /// value delivered after the upstream's completion.
  ///
  /// <!-- marbles:delay -->
  /// Marble diagram of `delay(for: 3, scheduler:)`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-b--c|
  /// output  ----a-b--c|
  /// ```
  ///
  /// ![Marble diagram of delay(for: 3, scheduler:)](marble-delay)
  /// <!-- /marbles:delay -->
  ///
  /// > Thread safety: Upstream may send from any thread. Values and the completion are delivered
  /// > on `scheduler`, one at a time. `request(_:)` and `cancel()` are safe from any thread;
  /// > no value is delivered after `cancel()` returns. Once the upstream's completion has
  /// > arrived, `cancel()` does nothing, as in Combine: the waiting values and the completion
  /// > are still delivered.
  ///
  /// - Parameters:
  ///   - interval: How long to hold each event.
  ///   - tolerance: How late the scheduler may deliver; its minimum tolerance if `nil`.
  ///   - scheduler: The scheduler to deliver on.
  ///   - options: Options passed to `scheduler`.
  /// - Returns: A publisher that delays its upstream's events.
  public func delay<S: Scheduler>(
    for interval: S.SchedulerTimeType.Stride,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.Delay<Self, S> {
    Publishers.Delay(
      upstream: self,
      interval: interval,
      tolerance: tolerance ?? scheduler.minimumTolerance,
      scheduler: scheduler,
      options: options
    )
  }
}

extension Publishers {
  /// A publisher that delivers its upstream's events after a fixed interval, on a scheduler.
  ///
  /// ```swift
  /// let later = Publishers.Delay(
  ///   upstream: values, interval: .seconds(1), tolerance: 0, scheduler: queue)
  /// ```
  ///
  /// See ``StreamCore/Publisher/delay(for:tolerance:scheduler:options:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose events are delayed.
    public let upstream: Upstream

    /// How long each event is held.
    public let interval: Context.SchedulerTimeType.Stride

    /// How late the scheduler may deliver.
    public let tolerance: Context.SchedulerTimeType.Stride

    /// The scheduler that delivers the events.
    public let scheduler: Context

    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that delays `upstream`'s events by `interval`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose events are delayed.
    ///   - interval: How long to hold each event.
    ///   - tolerance: How late the scheduler may deliver.
    ///   - scheduler: The scheduler to deliver on.
    ///   - options: Options passed to the scheduler.
    public init(
      upstream: Upstream,
      interval: Context.SchedulerTimeType.Stride,
      tolerance: Context.SchedulerTimeType.Stride,
      scheduler: Context,
      options: Context.SchedulerOptions? = nil
    ) {
      self.upstream = upstream
      self.interval = interval
      self.tolerance = tolerance
      self.scheduler = scheduler
      self.options = options
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      // As Combine's: `receive(on:)` with each action scheduled `interval` later.
      upstream.subscribe(
        Publishers.ReceiveOn<Upstream, Context>.Inner(
          downstream: subscriber,
          scheduler: scheduler,
          options: options,
          delay: (interval, tolerance)
        )
      )
    }
  }
}

extension Publishers.Delay: Sendable
where
  Context: Sendable,
  Upstream: Sendable,
  Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}
