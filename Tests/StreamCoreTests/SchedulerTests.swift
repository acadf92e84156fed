import Dispatch
import StreamCore
import Testing

/// The `Scheduler` extension methods: each forwards to a requirement, filling in
/// `minimumTolerance` and `nil` options.
@Suite(.timeLimit(.minutes(5))) struct SchedulerTests {
  private let scheduler = SpyScheduler()
  private let date = SpyScheduler.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1_000))

  @Test func scheduleAction_passesNilOptions() {
    scheduler.schedule {}
    #expect(scheduler.calls == [.now(options: nil)])
  }

  @Test func scheduleAfter_passesMinimumToleranceAndNilOptions() {
    scheduler.schedule(after: date) {}
    #expect(scheduler.calls == [.after(date, tolerance: .milliseconds(7), options: nil)])
  }

  @Test func scheduleAfterTolerance_passesTheToleranceAndNilOptions() {
    scheduler.schedule(after: date, tolerance: .seconds(2)) {}
    #expect(scheduler.calls == [.after(date, tolerance: .seconds(2), options: nil)])
  }

  @Test func scheduleAfterInterval_passesMinimumToleranceAndNilOptions() {
    let token = scheduler.schedule(after: date, interval: .seconds(1)) {}
    #expect(
      scheduler.calls == [
        .repeating(date, interval: .seconds(1), tolerance: .milliseconds(7), options: nil)
      ]
    )
    token.cancel()
  }

  @Test func scheduleAfterIntervalTolerance_passesTheToleranceAndNilOptions() {
    let token = scheduler.schedule(after: date, interval: .seconds(1), tolerance: .seconds(3)) {}
    #expect(
      scheduler.calls == [
        .repeating(date, interval: .seconds(1), tolerance: .seconds(3), options: nil)
      ]
    )
    token.cancel()
  }

  @Test func requirementsWithOptions_receiveTheOptions() {
    scheduler.schedule(options: "a") {}
    scheduler.schedule(after: date, tolerance: 1, options: "b") {}
    scheduler.schedule(after: date, interval: 2, tolerance: 3, options: "c") {}.cancel()
    #expect(
      scheduler.calls == [
        .now(options: "a"),
        .after(date, tolerance: 1, options: "b"),
        .repeating(date, interval: 2, tolerance: 3, options: "c"),
      ]
    )
  }

  @Test func extensionMethods_forwardTheAction() {
    let runs = RunCounter()
    let action: @Sendable () -> Void = { runs.increment() }
    scheduler.schedule(action)
    scheduler.schedule(after: date, action)
    scheduler.schedule(after: date, tolerance: 1, action)
    scheduler.schedule(after: date, interval: 1, action).cancel()
    scheduler.schedule(after: date, interval: 1, tolerance: 1, action).cancel()
    #expect(runs.value == 5)
  }

  @Test func existentialScheduler_canBeUsedThroughItsPrimaryAssociatedType() {
    let schedulers: [any Scheduler<DispatchQueue.SchedulerTimeType>] = [
      scheduler, DispatchQueue(label: "SchedulerTests"),
    ]
    #expect(schedulers.count == 2)
  }
}

/// A scheduler that records each call and runs its action at once.
private final class SpyScheduler: Scheduler {
  typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  typealias SchedulerOptions = String

  enum Call: Equatable {
    case now(options: String?)
    case after(SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: String?)
    case repeating(
      SchedulerTimeType,
      interval: SchedulerTimeType.Stride,
      tolerance: SchedulerTimeType.Stride,
      options: String?
    )
  }

  private let recorded = LockedState<[Call]>([])

  var calls: [Call] { recorded.withLock { $0 } }

  var now: SchedulerTimeType { SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)) }

  var minimumTolerance: SchedulerTimeType.Stride { .milliseconds(7) }

  func schedule(options: String?, _ action: @escaping @Sendable () -> Void) {
    recorded.withLock { $0.append(.now(options: options)) }
    action()
  }

  func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: String?,
    _ action: @escaping @Sendable () -> Void
  ) {
    recorded.withLock { $0.append(.after(date, tolerance: tolerance, options: options)) }
    action()
  }

  func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: String?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    recorded.withLock {
      $0.append(.repeating(date, interval: interval, tolerance: tolerance, options: options))
    }
    action()
    return AnyCancellable {}
  }
}

private final class RunCounter: Sendable {
  private let count = LockedState(0)

  var value: Int { count.withLock { $0 } }

  func increment() {
    count.withLock { $0 += 1 }
  }
}
