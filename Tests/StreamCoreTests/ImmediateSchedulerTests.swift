import Dispatch
import Foundation
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct ImmediateSchedulerTests {
  private let scheduler = ImmediateScheduler.shared

  @Test func repeatingSchedule_returnsTheEmptyCancellable_asCombine() {
    let cancellable = ImmediateScheduler.shared.schedule(
      after: ImmediateScheduler.shared.now,
      interval: 10
    ) {}
    #expect(String(describing: cancellable) == "Empty")
  }

  @Test func schedule_runsTheActionBeforeReturning() {
    let log = ImmediateLog()
    scheduler.schedule { log.append("action") }
    log.append("returned")
    #expect(log.entries == ["action", "returned"])
  }

  @Test func scheduleWithNilOptions_runsTheActionBeforeReturning() {
    let log = ImmediateLog()
    scheduler.schedule(options: nil) { log.append("action") }
    log.append("returned")
    #expect(log.entries == ["action", "returned"])
  }

  @Test func schedule_runsOnTheCallingThread() {
    let queue = DispatchQueue(label: "ImmediateSchedulerTests")
    let key = DispatchSpecificKey<String>()
    queue.setSpecific(key: key, value: "caller")
    let log = ImmediateLog()
    queue.sync {
      scheduler.schedule { log.append(DispatchQueue.getSpecific(key: key) ?? "elsewhere") }
    }
    #expect(log.entries == ["caller"])
  }

  @Test func nestedSchedule_runsInsideTheOuterAction() {
    let log = ImmediateLog()
    scheduler.schedule {
      log.append("outer start")
      scheduler.schedule { log.append("inner") }
      log.append("outer end")
    }
    #expect(log.entries == ["outer start", "inner", "outer end"])
  }

  @Test func scheduleAfter_runsAtOnceWhateverTheDate() {
    let log = ImmediateLog()
    let later = scheduler.now.advanced(by: .seconds(3_600))
    scheduler.schedule(after: later) { log.append("after") }
    scheduler.schedule(after: later, tolerance: 1) { log.append("after with tolerance") }
    scheduler.schedule(after: later, tolerance: 1, options: nil) { log.append("after, all") }
    #expect(log.entries == ["after", "after with tolerance", "after, all"])
  }

  @Test func severalActions_runInOrder() {
    let log = ImmediateLog()
    for index in 0..<5 {
      scheduler.schedule { log.append("\(index)") }
    }
    #expect(log.entries == ["0", "1", "2", "3", "4"])
  }

  @Test func repeating_runsOnceBeforeReturning() {
    let log = ImmediateLog()
    let token = scheduler.schedule(after: scheduler.now, interval: 1) { log.append("tick") }
    log.append("returned")
    #expect(log.entries == ["tick", "returned"])
    _ = token
  }

  @Test func repeatingEveryForm_runsOnceEach() {
    let log = ImmediateLog()
    let tokens = [
      scheduler.schedule(after: scheduler.now, interval: 1) { log.append("a") },
      scheduler.schedule(after: scheduler.now, interval: 1, tolerance: 0) { log.append("b") },
      scheduler.schedule(after: scheduler.now, interval: 1, tolerance: 0, options: nil) {
        log.append("c")
      },
    ]
    #expect(log.entries == ["a", "b", "c"])
    #expect(tokens.count == 3)
  }

  @Test func repeatingCancellable_doesNothing() {
    let log = ImmediateLog()
    let token = scheduler.schedule(after: scheduler.now, interval: 1) { log.append("tick") }
    token.cancel()
    token.cancel()
    #expect(log.entries == ["tick"])
  }

  @Test func minimumTolerance_isZero() {
    #expect(scheduler.minimumTolerance == 0)
  }

  @Test func now_isTheSameInstantEveryTime() {
    #expect(scheduler.now == scheduler.now)
    #expect(ImmediateScheduler.shared.now == scheduler.now)
  }

  // MARK: - SchedulerTimeType

  @Test func timeAdvancedBy_returnsTheSameInstant() {
    let now = scheduler.now
    #expect(now.advanced(by: 5) == now)
    #expect(now.advanced(by: -5) == now)
  }

  @Test func timeDistanceTo_isAlwaysZero() {
    let now = scheduler.now
    #expect(now.distance(to: now.advanced(by: .seconds(10))) == .zero)
    #expect(now.distance(to: now) == 0)
  }

  @Test func timeHashable_allInstantsAreEqual() {
    let now = scheduler.now
    #expect(Set([now, now.advanced(by: 1)]).count == 1)
  }

  @Test func timeCodable_roundTrips() throws {
    let now = scheduler.now
    let data = try JSONEncoder().encode(now)
    #expect(try JSONDecoder().decode(ImmediateScheduler.SchedulerTimeType.self, from: data) == now)
  }
}

private final class ImmediateLog: Sendable {
  private let storage = LockedState<[String]>([])

  var entries: [String] { storage.withLock { $0 } }

  func append(_ entry: String) {
    storage.withLock { $0.append(entry) }
  }
}
