import FutureKit
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Resubscribes to the upstream after each failure, waiting the given intervals in between.
  ///
  /// ```swift
  /// download
  ///   .retry(on: DispatchQueue.main, intervals: [0, 1, 5])
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// There is one retry per interval: after the i-th failure the operator waits `intervals[i-1]`
  /// seconds on `scheduler` and subscribes to the upstream again. An interval of zero or less
  /// resubscribes at once, from inside the failure. Once the intervals are used up, the failure
  /// goes downstream; a successful finish goes downstream at once. Values already delivered stay
  /// delivered, so a retry may send them again. The downstream demand not yet met is requested
  /// again from each new attempt. Downstream gets one subscription, for all attempts.
  ///
  /// Intervals are `Double` seconds (Foundation's `TimeInterval`, which StreamKit cannot import),
  /// converted with the stride's `seconds(_:)`.
  ///
  /// **Difference from Conbini:** `tolerance` and `options` are passed to the scheduler; Conbini
  /// ignored them.
  ///
  /// <!-- marbles:delayed-retry -->
  /// Marble diagram of `retry(on: scheduler, intervals: [2, 3])`, made by running it (a character
  /// is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-#
  /// output  -a----a-----a-#
  ///         intervals in ticks: the second try starts 2 after the first failure, the third 3
  /// ```
  ///
  /// ![Marble diagram of retry(on: scheduler, intervals: [2, 3])](marble-delayed-retry)
  /// <!-- /marbles:delayed-retry -->
  ///
  /// > Thread safety: Upstream may send from any thread. Values and completions go downstream on
  /// > the thread the current attempt sends them on; an attempt that follows a wait subscribes on
  /// > `scheduler`. `request(_:)` and `cancel()` are safe from any thread; `cancel()` stops the
  /// > current attempt and any pending retry.
  ///
  /// - Parameters:
  ///   - scheduler: Runs the waits between attempts.
  ///   - tolerance: How late each retry may start; `nil` means the scheduler's minimum tolerance.
  ///   - options: Options passed to the scheduler with each wait.
  ///   - intervals: The wait, in seconds, before each retry; its count is the number of retries.
  /// - Returns: A publisher that retries the upstream after failures.
  public func retry<S: Scheduler>(
    on scheduler: S,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    options: S.SchedulerOptions? = nil,
    intervals: [Double]
  ) -> Publishers.DelayedRetry<Self, S> {
    Publishers.DelayedRetry(
      upstream: self,
      scheduler: scheduler,
      tolerance: tolerance,
      options: options,
      intervals: intervals
    )
  }

  /// Resubscribes to the upstream after each failure, waiting the given scheduler strides in
  /// between.
  ///
  /// ```swift
  /// download
  ///   .retry(on: queue, intervals: [.zero, .milliseconds(500), .seconds(2)])
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// Behaves as `retry(on:tolerance:options:intervals:)` with `Double` intervals, but takes the
  /// intervals in the scheduler's own stride type.
  ///
  /// Array literals of plain numbers pick the `Double` form (this overload is disfavoured), so
  /// `intervals: [0, 1, 5]` means seconds, as in Conbini; spell strides as strides.
  ///
  /// <!-- marbles:delayed-retry -->
  /// Marble diagram of `retry(on: scheduler, intervals: [2, 3])`, made by running it (a character
  /// is a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-#
  /// output  -a----a-----a-#
  ///         intervals in ticks: the second try starts 2 after the first failure, the third 3
  /// ```
  ///
  /// ![Marble diagram of retry(on: scheduler, intervals: [2, 3])](marble-delayed-retry)
  /// <!-- /marbles:delayed-retry -->
  ///
  /// > Thread safety: As for the `Double` form.
  ///
  /// - Parameters:
  ///   - scheduler: Runs the waits between attempts.
  ///   - tolerance: How late each retry may start; `nil` means the scheduler's minimum tolerance.
  ///   - options: Options passed to the scheduler with each wait.
  ///   - intervals: The wait before each retry; its count is the number of retries.
  /// - Returns: A publisher that retries the upstream after failures.
  @_disfavoredOverload
  public func retry<S: Scheduler>(
    on scheduler: S,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    options: S.SchedulerOptions? = nil,
    intervals: [S.SchedulerTimeType.Stride]
  ) -> Publishers.DelayedRetry<Self, S> {
    Publishers.DelayedRetry(
      upstream: self,
      scheduler: scheduler,
      tolerance: tolerance,
      options: options,
      intervals: intervals
    )
  }
}

extension Publishers {
  /// A publisher that resubscribes to its upstream after failures, waiting on a scheduler
  /// between attempts.
  ///
  /// ```swift
  /// let retrying = Publishers.DelayedRetry(
  ///   upstream: download, scheduler: queue, tolerance: nil, options: nil, intervals: [1, 2])
  /// ```
  ///
  /// See `retry(on:tolerance:options:intervals:)` with `Double` intervals.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct DelayedRetry<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher subscribed to on each attempt.
    public let upstream: Upstream

    /// Runs the waits between attempts.
    public let scheduler: Context

    /// How late each retry may start; `nil` means the scheduler's minimum tolerance.
    public let tolerance: Context.SchedulerTimeType.Stride?

    /// Options passed to the scheduler with each wait.
    public let options: Context.SchedulerOptions?

    /// The wait before each retry, in the scheduler's stride.
    public let intervals: [Context.SchedulerTimeType.Stride]

    /// Creates a retrying publisher with intervals in `Double` seconds.
    ///
    /// - Parameters:
    ///   - upstream: The publisher subscribed to on each attempt.
    ///   - scheduler: Runs the waits between attempts.
    ///   - tolerance: How late each retry may start.
    ///   - options: Options passed to the scheduler with each wait.
    ///   - intervals: The wait before each retry, in seconds.
    public init(
      upstream: Upstream,
      scheduler: Context,
      tolerance: Context.SchedulerTimeType.Stride?,
      options: Context.SchedulerOptions?,
      intervals: [Double]
    ) {
      self.init(
        upstream: upstream,
        scheduler: scheduler,
        tolerance: tolerance,
        options: options,
        intervals: intervals.map { Context.SchedulerTimeType.Stride.seconds($0) }
      )
    }

    /// Creates a retrying publisher with intervals in the scheduler's stride.
    ///
    /// - Parameters:
    ///   - upstream: The publisher subscribed to on each attempt.
    ///   - scheduler: Runs the waits between attempts.
    ///   - tolerance: How late each retry may start.
    ///   - options: Options passed to the scheduler with each wait.
    ///   - intervals: The wait before each retry.
    public init(
      upstream: Upstream,
      scheduler: Context,
      tolerance: Context.SchedulerTimeType.Stride?,
      options: Context.SchedulerOptions?,
      intervals: [Context.SchedulerTimeType.Stride]
    ) {
      self.upstream = upstream
      self.scheduler = scheduler
      self.tolerance = tolerance
      self.options = options
      self.intervals = intervals
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let serial = SerialUpstreams(downstream: subscriber, name: "DelayedRetry")
      let attempts = Attempts(
        serial: serial,
        upstream: upstream,
        scheduler: scheduler,
        tolerance: tolerance ?? scheduler.minimumTolerance,
        options: options,
        intervals: intervals
      )
      serial.run(attempts.attempt)
    }
  }
}

extension Publishers.DelayedRetry: Sendable
where
  Upstream: Sendable,
  Context: Sendable,
  Context.SchedulerOptions: Sendable,
  Context.SchedulerTimeType.Stride: Sendable
{}

extension Publishers.DelayedRetry {
  /// Subscribes the attempts, one after another, through the shared serial engine, which gives
  /// the downstream one subscription, carries unmet demand over, releases the downstream once
  /// it ends, and trampolines attempts that fail synchronously (zero intervals), so a long run
  /// of retries doesn't deepen the stack.
  ///
  /// ```
  /// attempt k --finished / last failure--> downstream completes
  /// attempt k --failure, interval <= 0--> attempt k + 1 (trampolined)
  /// attempt k --failure, interval > 0--> timer --fires--> attempt k + 1 (if not cancelled)
  /// ```
  // Sendable: `failures` is guarded by `lock`; the rest is immutable.
  @usableFromInline
  final class Attempts<Downstream: Subscriber>: @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    @usableFromInline let lock = Lock()
    @usableFromInline var failures = 0
    @usableFromInline let serial: SerialUpstreams<Downstream>
    @usableFromInline let upstream: Upstream
    @usableFromInline let scheduler: Context
    @usableFromInline let tolerance: Context.SchedulerTimeType.Stride
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let intervals: [Context.SchedulerTimeType.Stride]

    @inlinable
    init(
      serial: SerialUpstreams<Downstream>,
      upstream: Upstream,
      scheduler: Context,
      tolerance: Context.SchedulerTimeType.Stride,
      options: Context.SchedulerOptions?,
      intervals: [Context.SchedulerTimeType.Stride]
    ) {
      self.serial = serial
      self.upstream = upstream
      self.scheduler = scheduler
      self.tolerance = tolerance
      self.options = options
      self.intervals = intervals
    }

    /// Subscribes the next attempt; run through `serial.run(_:)`.
    @inlinable
    func attempt() {
      serial.attach(upstream) { [self] completion in
        next(after: completion)
      }
    }

    /// What follows a completed attempt: the downstream completes, or the next attempt
    /// follows (at once, or after its interval on the scheduler).
    @inlinable
    func next(
      after completion: Subscribers.Completion<Failure>
    ) -> SerialUpstreams<Downstream>.Step {
      guard case .failure = completion else { return .complete(completion) }
      let interval = lock.withLock { () -> Context.SchedulerTimeType.Stride? in
        guard failures < intervals.count else { return nil }
        defer { failures += 1 }
        return intervals[failures]
      }
      guard let interval else { return .complete(completion) }
      if interval <= .zero { return .next(attempt) }
      return .next { [self] in
        scheduler.schedule(
          after: scheduler.now.advanced(by: interval),
          tolerance: tolerance,
          options: options
        ) { [self] in
          serial.run(attempt)
        }
      }
    }
  }
}
