/// The machinery of a connectable timer on any scheduler: `Publishers.Timer` (combine-schedulers')
/// and Foundation's `Timer.TimerPublisher` are both this, under their own names. Connecting
/// schedules a repeating action that sends the scheduler's time; every connection while one runs
/// returns that one.
// Sendable: the configuration is immutable, the scheduler is only asked to schedule (the
// Scheduler contract allows that from any thread), and the connection state is locked.
package final class ScheduledTimer<S: Scheduler>: ConnectablePublisher, @unchecked Sendable {
  package typealias Output = S.SchedulerTimeType
  package typealias Failure = Never
  package let interval: S.SchedulerTimeType.Stride
  package let tolerance: S.SchedulerTimeType.Stride?
  package let scheduler: S
  package let options: S.SchedulerOptions?

  private let ticks = PassthroughSubject<S.SchedulerTimeType, Never>()
  private let slot = TimerConnectionSlot()

  package init(
    every interval: S.SchedulerTimeType.Stride,
    tolerance: S.SchedulerTimeType.Stride? = nil,
    scheduler: S,
    options: S.SchedulerOptions? = nil
  ) {
    self.interval = interval
    self.tolerance = tolerance
    self.scheduler = scheduler
    self.options = options
  }

  package func receive<Downstream: Subscriber>(subscriber: Downstream)
  where Downstream.Input == Output, Downstream.Failure == Never {
    ticks.receive(subscriber: subscriber)
  }

  package func connect() -> any Cancellable {
    let (current, isNew) = slot.current.withLock { connection -> (TimerConnection, Bool) in
      if let connection { return (connection, false) }
      let created = TimerConnection(slot: slot)
      connection = created
      return (created, true)
    }
    if isNew {
      let feed = TimerTicks(ticks: ticks, scheduler: scheduler)
      let token = scheduler.schedule(
        after: scheduler.now.advanced(by: interval),
        interval: interval,
        tolerance: tolerance ?? scheduler.minimumTolerance,
        options: options
      ) { feed.tick() }
      current.start(token)
    }
    return current
  }
}

private final class TimerConnectionSlot: Sendable {
  let current = LockedState<TimerConnection?>(nil)
}

/// One connection of a timer: holds the scheduler's token until cancelled. A cancel that comes
/// before the token arrives cancels it on arrival. Like Combine's connections, it does not
/// cancel when released: only `cancel()` stops the ticks.
private final class TimerConnection: Cancellable, Sendable {
  private enum Phase {
    case starting
    case running(any Cancellable)
    case cancelled
  }

  private let phase = LockedState(Phase.starting)
  private weak let slot: TimerConnectionSlot?

  init(slot: TimerConnectionSlot) {
    self.slot = slot
  }

  func start(_ token: any Cancellable) {
    let cancelNow = phase.withLock { phase -> Bool in
      guard case .starting = phase else { return true }
      phase = .running(token)
      return false
    }
    if cancelNow { token.cancel() }
  }

  func cancel() {
    slot?.current.withLock { current in
      if current === self { current = nil }
    }
    let token = phase.withLock { phase -> (any Cancellable)? in
      defer { phase = .cancelled }
      if case .running(let token) = phase { return token }
      return nil
    }
    token?.cancel()
  }
}

/// Sends the scheduler's time into the timer's subject. A class, so the repeating action
/// captures one reference and no generic metadata.
// Sendable: both properties are immutable; the scheduler is only asked for `now`, which a
// scheduler allows from any thread (the Scheduler contract).
private final class TimerTicks<S: Scheduler>: @unchecked Sendable {

  private let ticks: PassthroughSubject<S.SchedulerTimeType, Never>
  private let scheduler: S

  init(ticks: PassthroughSubject<S.SchedulerTimeType, Never>, scheduler: S) {
    self.ticks = ticks
    self.scheduler = scheduler
  }

  func tick() {
    ticks.send(scheduler.now)
  }
}
