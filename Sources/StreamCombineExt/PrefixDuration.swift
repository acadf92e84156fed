import SignalOperators
public import StreamCore

extension Publisher {
  /// Republishes the upstream's values for `duration` from the subscription, then finishes.
  ///
  /// ```swift
  /// let firstSecond = values.prefix(duration: .seconds(1), on: DispatchQueue.main)
  /// ```
  ///
  /// A timer on `scheduler` starts when the subscription does; values and the completion that
  /// arrive before it fires pass through with the subscriber's demand, and when it fires the
  /// upstream is cancelled and the publisher finishes. It is
  /// `prefix(untilOutputFrom:)` with a one-shot timer that is cancelled with the subscription.
  ///
  /// <!-- marbles:prefix-duration -->
  /// Marble diagram of `prefix(duration: 5, on: scheduler)`, made by running it (a character is a
  /// tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-b--c-|
  /// output  -a-b-|
  /// ```
  ///
  /// ![Marble diagram of prefix(duration: 5, on: scheduler)](marble-prefix-duration)
  /// <!-- /marbles:prefix-duration -->
  ///
  /// > Thread safety: As `prefix(untilOutputFrom:)`: the finish is delivered on `scheduler`,
  /// > values on the upstream's thread; `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameters:
  ///   - duration: How long to republish values, from the subscription.
  ///   - tolerance: How late the timer may fire; the scheduler's minimum tolerance if `nil`.
  ///   - scheduler: The scheduler that runs the timer.
  ///   - options: Options passed to `scheduler`.
  /// - Returns: A publisher of the values the upstream sends within `duration`.
  public func prefix<S: Scheduler>(
    duration: S.SchedulerTimeType.Stride,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    on scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> AnyPublisher<Output, Failure> {
    prefix(
      untilOutputFrom: DurationElapsed(
        duration: duration,
        tolerance: tolerance ?? scheduler.minimumTolerance,
        scheduler: scheduler,
        options: options
      )
    )
    .eraseToAnyPublisher()
  }
}

/// Publishes one `()` `duration` after it is subscribed to, then finishes: the timer of
/// `prefix(duration:)`. The timer is cancelled if the subscription is.
struct DurationElapsed<Context: Scheduler>: Publisher {
  typealias Output = Void
  typealias Failure = Never

  let duration: Context.SchedulerTimeType.Stride
  let tolerance: Context.SchedulerTimeType.Stride
  let scheduler: Context
  let options: Context.SchedulerOptions?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
    let inner = Inner(downstream: subscriber)
    subscriber.receive(subscription: inner)
    // A repeating schedule, for its cancellable; the first firing ends the subscription.
    let timer = scheduler.schedule(
      after: scheduler.now.advanced(by: duration),
      interval: duration,
      tolerance: tolerance,
      options: options
    ) { [weak inner] in
      inner?.fire()
    }
    inner.install(timer)
  }

  /// ```
  /// waiting --fire(), demand--> terminal      (deliver (), then .finished)
  /// waiting --fire(), no demand--> fired
  /// fired --request(_:)--> terminal           (deliver (), then .finished)
  /// any --cancel()--> terminal
  /// ```
  // Sendable: `state` and `timer` are guarded by `lock`; the downstream and the timer are called
  // outside it.
  private final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  where Downstream.Input == Void, Downstream.Failure == Never {
    private enum State {
      case waiting(Downstream, demanded: Bool)
      case fired(Downstream)
      case terminal
    }

    private let lock = Lock()
    private var state: State
    private var timer: (any Cancellable)?

    init(downstream: Downstream) {
      state = .waiting(downstream, demanded: false)
    }

    var description: String { "Timer" }

    /// The `downstream` (`nil` once released) and the `state`: `waiting`, `fired` (waiting for
    /// demand) or `terminal`.
    var customMirror: Mirror {
      let (downstream, phase) = lock.withLock { () -> (Downstream?, String) in
        switch state {
        case .waiting(let downstream, _): (downstream, "waiting")
        case .fired(let downstream): (downstream, "fired")
        case .terminal: (nil, "terminal")
        }
      }
      return Mirror(self, children: ["downstream": downstream as Any, "state": phase])
    }

    var playgroundDescription: Any { description }

    func install(_ timer: any Cancellable) {
      let stale = lock.withLock { () -> Bool in
        if case .terminal = state { return true }
        self.timer = timer
        return false
      }
      if stale { timer.cancel() }
    }

    func fire() {
      let (target, timer) = lock.withLock { () -> (Downstream?, (any Cancellable)?) in
        guard case .waiting(let downstream, let demanded) = state else { return (nil, nil) }
        guard demanded else {
          state = .fired(downstream)
          return (nil, self.timer.take())
        }
        state = .terminal
        return (downstream, self.timer.take())
      }
      timer?.cancel()
      deliver(to: target)
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let target = lock.withLock { () -> Downstream? in
        switch state {
        case .waiting(let downstream, _):
          state = .waiting(downstream, demanded: true)
          return nil
        case .fired(let downstream):
          state = .terminal
          return downstream
        case .terminal:
          return nil
        }
      }
      deliver(to: target)
    }

    func cancel() {
      let (released, timer) = lock.withLock { () -> (State, (any Cancellable)?) in
        defer { state = .terminal }
        return (state, self.timer.take())
      }
      timer?.cancel()
      _ = released  // the subscriber, released after the lock
    }

    private func deliver(to downstream: Downstream?) {
      guard let downstream else { return }
      _ = downstream.receive(())
      downstream.receive(completion: .finished)
    }
  }
}
