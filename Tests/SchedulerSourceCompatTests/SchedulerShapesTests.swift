// Scheduler code that compiles against Combine (and combine-schedulers), with only the imports
// changed, in the Swift 6 language mode with no other settings: a scheduler class of a library's
// own with `var` state (not `final`, not `Sendable`), `RunLoop.main` passed to generic code,
// `AnySchedulerOf<RunLoop>` and `Publishers.Timer` on a run loop. `Scheduler` refining `Sendable`
// made all of these fail to compile.

import Dispatch
import Foundation
import SignalOperators
import StreamCombineSchedulers
import StreamCore
import StreamFoundation
import Testing

/// A library's manual scheduler: it runs what is due when told to.
class StepScheduler: Scheduler {
  typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  typealias SchedulerOptions = Never

  var now = SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
  var minimumTolerance: SchedulerTimeType.Stride { .zero }
  var queued: [(at: SchedulerTimeType, action: () -> Void)] = []

  func schedule(options: Never?, _ action: @escaping () -> Void) {
    queued.append((now, action))
  }

  func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: Never?,
    _ action: @escaping () -> Void
  ) {
    queued.append((date, action))
  }

  func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: Never?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    queued.append((date, action))
    return AnyCancellable {}
  }

  /// Runs everything due by `now + stride`, in time order.
  func advance(by stride: SchedulerTimeType.Stride) {
    now = now.advanced(by: stride)
    let due = queued.filter { $0.at <= now }.sorted { $0.at < $1.at }
    queued.removeAll { $0.at <= now }
    for entry in due { entry.action() }
  }
}

/// Generic code over any scheduler, as a library writes it.
func currentTime<S: Scheduler>(of scheduler: S) -> S.SchedulerTimeType {
  scheduler.now
}

@Suite(.timeLimit(.minutes(5))) struct SchedulerShapesTests {
  @Test func aLibrarysSchedulerClass_drivesOperators() {
    let scheduler = StepScheduler()
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    let cancellable = subject.delay(for: .seconds(1), scheduler: scheduler)
      .sink { received.append($0) }
    subject.send(1)
    #expect(received.isEmpty)
    scheduler.advance(by: .seconds(1))
    #expect(received == [1])
    cancellable.cancel()
  }

  @Test func runLoopMain_isAScheduler() {
    let before = Date()
    let now = currentTime(of: RunLoop.main)
    #expect(now.date >= before.addingTimeInterval(-1))
    let erased: AnySchedulerOf<RunLoop> = RunLoop.main.eraseToAnyScheduler()
    #expect(erased.now.date >= before.addingTimeInterval(-1))
  }

  @Test func timerPublisher_onARunLoop_ticks() {
    let runLoop = RunLoop.current
    let timer = Publishers.Timer(every: .milliseconds(10), scheduler: runLoop)
    var ticks = 0
    let subscription = timer.sink { _ in ticks += 1 }
    let connection = timer.connect()
    let deadline = Date().addingTimeInterval(10)
    while ticks == 0, Date() < deadline {
      _ = runLoop.run(mode: .default, before: Date().addingTimeInterval(0.05))
    }
    #expect(ticks > 0)
    connection.cancel()
    subscription.cancel()
  }
}
