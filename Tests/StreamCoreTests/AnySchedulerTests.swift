import Dispatch
import StreamCombineSchedulers
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct AnySchedulerTests {
  @Test func erased_forwardsEveryCallWithItsArguments() {
    let spy = SpyScheduler()
    let erased = spy.eraseToAnyScheduler()
    let log = Log()

    erased.schedule(options: .init(qos: .utility)) { log.append("now") }
    erased.schedule(after: .init(.init(uptimeNanoseconds: 5)), tolerance: .seconds(2), options: nil)
    {
      log.append("later")
    }
    let token = erased.schedule(
      after: .init(.init(uptimeNanoseconds: 7)),
      interval: .milliseconds(3),
      tolerance: .zero,
      options: nil
    ) { log.append("repeat") }

    #expect(erased.now == spy.now)
    #expect(erased.minimumTolerance == .milliseconds(4))
    #expect(
      spy.calls == [
        "now qos=utility", "after 5 tolerance 2000000000",
        "after 7 interval 3000000 tolerance 0",
      ]
    )
    #expect(log.entries == ["now", "later", "repeat"])
    token.cancel()
    #expect(spy.calls.last == "cancel")
  }

  @Test func erasingTwice_forwardsOnceToTheOriginal() {
    let spy = SpyScheduler()
    let twice = AnyScheduler(spy.eraseToAnyScheduler()).eraseToAnyScheduler()
    let log = Log()
    twice.schedule { log.append("ran") }
    #expect(spy.calls == ["now qos=nil"])
    #expect(log.entries == ["ran"])
  }

  @Test func closureInit_callsEachClosureForItsRequirement() {
    let log = Log()
    let scheduler = AnyScheduler<DispatchQueue.SchedulerTimeType, Never>(
      minimumTolerance: { .seconds(9) },
      now: { .init(.init(uptimeNanoseconds: 42)) },
      scheduleImmediately: { _, action in
        log.append("immediately")
        action()
      },
      delayed: { date, _, _, action in
        log.append("delayed \(date.dispatchTime.uptimeNanoseconds)")
        action()
      },
      interval: { _, interval, _, _, action in
        log.append("interval \(interval.magnitude)")
        action()
        return AnyCancellable { log.append("cancelled") }
      }
    )
    scheduler.schedule { log.append("a") }
    scheduler.schedule(after: .init(.init(uptimeNanoseconds: 3))) { log.append("b") }
    scheduler.schedule(after: scheduler.now, interval: .nanoseconds(11)) { log.append("c") }
      .cancel()

    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 42)
    #expect(scheduler.minimumTolerance == .seconds(9))
    #expect(
      log.entries == ["immediately", "a", "delayed 3", "b", "interval 11", "c", "cancelled"]
    )
  }

  @Test func typedAsAQueue_acceptsTheErasedMainQueue() {
    let main: AnySchedulerOf<DispatchQueue> = .main
    let global: AnySchedulerOf<DispatchQueue> = .global(qos: .utility)
    let immediate: AnySchedulerOf<DispatchQueue> = .immediate
    #expect(main.minimumTolerance == DispatchQueue.main.minimumTolerance)
    #expect(global.now >= main.now || global.now <= main.now)
    let log = Log()
    immediate.schedule { log.append("ran at once") }
    #expect(log.entries == ["ran at once"])
  }
}

/// A dispatch-typed scheduler that runs everything at once and logs each call with its
/// arguments.
// Sendable: `calls` is a `Log`, which locks.
private struct SpyScheduler: Scheduler {
  typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  typealias SchedulerOptions = DispatchQueue.SchedulerOptions

  private let log = Log()
  var calls: [String] { log.entries }

  var now: SchedulerTimeType { .init(.init(uptimeNanoseconds: 1_000)) }
  var minimumTolerance: SchedulerTimeType.Stride { .milliseconds(4) }

  func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    log.append("now qos=\(options.map { "\($0.qos.qosClass)" } ?? "nil")")
    action()
  }

  func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    log.append("after \(date.dispatchTime.uptimeNanoseconds) tolerance \(tolerance.magnitude)")
    action()
  }

  func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    log.append(
      "after \(date.dispatchTime.uptimeNanoseconds) interval \(interval.magnitude) "
        + "tolerance \(tolerance.magnitude)"
    )
    action()
    return AnyCancellable { [log] in log.append("cancel") }
  }
}
