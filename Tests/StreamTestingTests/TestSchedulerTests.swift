import Dispatch
import Foundation
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TestSchedulerTests {
  private let scheduler = TestScheduler()

  // MARK: Ordering and advancing

  @Test func sameInstant_runsInSchedulingOrder() {
    let log = SchedulerLog()
    let due = scheduler.now.advanced(by: 5)
    for index in 0..<5 {
      scheduler.schedule(after: due) { log.append("\(index)") }
    }
    scheduler.advance(by: 5)
    #expect(log.entries == ["0", "1", "2", "3", "4"])
  }

  @Test func differentInstants_runInTimeOrderWhateverTheSchedulingOrder() {
    let log = SchedulerLog()
    scheduler.schedule(after: .init(30)) { log.append("30") }
    scheduler.schedule(after: .init(10)) { log.append("10") }
    scheduler.schedule(after: .init(20)) { log.append("20 a") }
    scheduler.schedule(after: .init(20)) { log.append("20 b") }
    scheduler.advance(by: 30)
    #expect(log.entries == ["10", "20 a", "20 b", "30"])
  }

  @Test func schedule_runsOnTheNextAdvanceAndNotBefore() {
    let log = SchedulerLog()
    scheduler.schedule { log.append("immediate") }
    scheduler.schedule(options: nil) { log.append("with options") }
    #expect(log.entries.isEmpty)
    #expect(scheduler.pendingActionCount == 2)
    scheduler.advance()
    #expect(log.entries == ["immediate", "with options"])
    #expect(scheduler.now == .init(0))
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func scheduleInThePast_runsOnTheNextAdvanceWithoutMovingTimeBack() {
    let scheduler = TestScheduler(now: .init(100))
    let log = SchedulerLog()
    scheduler.schedule(after: .init(40)) { log.append("past at \(scheduler.now.ticks)") }
    scheduler.advance()
    #expect(log.entries == ["past at 100"])
    #expect(scheduler.now == .init(100))
  }

  @Test func advanceBy_runsOnlyActionsDueByThen() {
    let log = SchedulerLog()
    scheduler.schedule(after: .init(3)) { log.append("3") }
    scheduler.schedule(after: .init(4)) { log.append("4") }
    scheduler.advance(by: 2)
    #expect(log.entries.isEmpty)
    scheduler.advance(by: 1)
    #expect(log.entries == ["3"])
    #expect(scheduler.now == .init(3))
    scheduler.advance(by: 1)
    #expect(log.entries == ["3", "4"])
  }

  @Test func advanceTo_movesNowToTheTargetAndRunsDueActions() {
    let log = SchedulerLog()
    scheduler.schedule(after: .init(7)) { log.append("7") }
    scheduler.schedule(after: .init(12)) { log.append("12") }
    scheduler.advance(to: .init(10))
    #expect(log.entries == ["7"])
    #expect(scheduler.now == .init(10))
    #expect(scheduler.pendingActionCount == 1)
  }

  @Test func advanceToThePast_runsDueActionsAndKeepsNow() {
    scheduler.advance(to: .init(50))
    let log = SchedulerLog()
    scheduler.schedule { log.append("due") }
    scheduler.advance(to: .init(20))
    scheduler.advance(by: -5)
    #expect(log.entries == ["due"])
    #expect(scheduler.now == .init(50))
  }

  @Test func advanceBySeconds_usesNanosecondTicks() {
    let log = SchedulerLog()
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append("1 s") }
    scheduler.advance(by: .milliseconds(999))
    #expect(log.entries.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(log.entries == ["1 s"])
    #expect(scheduler.now == .init(1_000_000_000))
  }

  @Test func initialNow_isTheGivenInstant() {
    #expect(TestScheduler(now: .init(42)).now.ticks == 42)
    #expect(scheduler.now.ticks == 0)
    #expect(scheduler.minimumTolerance == 0)
  }

  // MARK: Actions

  @Test func nowInsideAnAction_isItsDueTime() {
    let log = SchedulerLog()
    for due in [5, 9, 9, 14] {
      scheduler.schedule(after: .init(due)) { log.append("\(scheduler.now.ticks)") }
    }
    scheduler.advance(by: 100)
    #expect(log.entries == ["5", "9", "9", "14"])
    #expect(scheduler.now == .init(100))
  }

  @Test func actionSchedulingAtTheCurrentInstant_runsInTheSameAdvanceAfterWorkAlreadyDue() {
    let log = SchedulerLog()
    scheduler.schedule(after: .init(5)) {
      log.append("outer")
      scheduler.schedule { log.append("inner at \(scheduler.now.ticks)") }
    }
    scheduler.schedule(after: .init(5)) { log.append("sibling") }
    scheduler.advance(by: 5)
    #expect(log.entries == ["outer", "sibling", "inner at 5"])
  }

  @Test func actionSchedulingLaterWork_runsItWhenTheAdvanceReachesIt() {
    let log = SchedulerLog()
    scheduler.schedule(after: .init(2)) {
      log.append("first at \(scheduler.now.ticks)")
      scheduler.schedule(after: scheduler.now.advanced(by: 3)) {
        log.append("second at \(scheduler.now.ticks)")
      }
      scheduler.schedule(after: scheduler.now.advanced(by: 30)) { log.append("too late") }
    }
    scheduler.advance(by: 10)
    #expect(log.entries == ["first at 2", "second at 5"])
    #expect(scheduler.pendingActionCount == 1)
  }

  @Test func actionAdvancingTheScheduler_doesNotDeadlock() {
    let log = SchedulerLog()
    scheduler.schedule(after: .init(1)) {
      log.append("outer")
      scheduler.advance(by: 1)
    }
    scheduler.schedule(after: .init(2)) { log.append("at \(scheduler.now.ticks)") }
    scheduler.advance(by: 1)
    #expect(log.entries == ["outer", "at 2"])
    #expect(scheduler.now == .init(2))
  }

  // MARK: Repeating actions

  @Test func repeating_runsOncePerIntervalFromItsStart() {
    let log = SchedulerLog()
    let token = scheduler.schedule(after: .init(2), interval: 3) {
      log.append("\(scheduler.now.ticks)")
    }
    scheduler.advance(by: 10)
    #expect(log.entries == ["2", "5", "8"])
    scheduler.advance(by: 1)
    #expect(log.entries == ["2", "5", "8", "11"])
    token.cancel()
  }

  @Test func repeatingCancelled_neverRunsAgain() {
    let log = SchedulerLog()
    let token = scheduler.schedule(after: scheduler.now, interval: 2, tolerance: 0) {
      log.append("tick")
    }
    scheduler.advance(by: 3)
    #expect(log.entries.count == 2)
    token.cancel()
    #expect(scheduler.pendingActionCount == 0)
    scheduler.advance(by: 100)
    #expect(log.entries.count == 2)
  }

  @Test func repeatingCancelledFromInsideItsAction_stops() {
    let log = SchedulerLog()
    let holder = TokenHolder()
    holder.token = scheduler.schedule(after: .init(1), interval: 1) {
      log.append("tick")
      if log.entries.count == 3 { holder.token?.cancel() }
    }
    scheduler.advance(by: 10)
    #expect(log.entries.count == 3)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func repeatingWhoseTokenIsReleased_isCancelled() {
    let log = SchedulerLog()
    _ = scheduler.schedule(after: .init(1), interval: 1) { log.append("tick") }
    scheduler.advance(by: 10)
    #expect(log.entries.isEmpty)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func repeatingWithZeroInterval_repeatsEveryTick() {
    let log = SchedulerLog()
    let token = scheduler.schedule(after: .init(0), interval: 0, tolerance: 0, options: nil) {
      log.append("\(scheduler.now.ticks)")
    }
    scheduler.advance(by: 3)
    #expect(log.entries == ["0", "1", "2", "3"])
    token.cancel()
  }

  @Test func repeatingAndOneShotAtTheSameInstant_runInSchedulingOrder() {
    let log = SchedulerLog()
    let token = scheduler.schedule(after: .init(2), interval: 2) { log.append("timer") }
    scheduler.schedule(after: .init(2)) { log.append("one-shot at 2") }
    scheduler.schedule(after: .init(4)) { log.append("one-shot at 4") }
    scheduler.advance(by: 4)
    // The timer's run at 4 was scheduled when it ran at 2, after "one-shot at 4".
    #expect(log.entries == ["timer", "one-shot at 2", "one-shot at 4", "timer"])
    token.cancel()
  }

  // MARK: run()

  @Test func run_runsEverythingAndEndsAtTheLastDueTime() {
    let log = SchedulerLog()
    scheduler.schedule(after: .init(5)) {
      log.append("5")
      scheduler.schedule(after: .init(50)) { log.append("50") }
    }
    scheduler.schedule(after: .init(9)) { log.append("9") }
    let finished = scheduler.run()
    #expect(finished)
    #expect(log.entries == ["5", "9", "50"])
    #expect(scheduler.now == .init(50))
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func runWithNothingScheduled_returnsAtOnce() {
    #expect(scheduler.run())
    #expect(scheduler.now == .init(0))
  }

  @Test func runWithAnActiveRepeatingAction_stopsAtTheLimit() {
    let log = SchedulerLog()
    let token = scheduler.schedule(after: .init(0), interval: 10) { log.append("tick") }
    let finished = scheduler.run(limit: 5)
    #expect(!finished)
    #expect(log.entries.count == 5)
    #expect(scheduler.now == .init(40))
    token.cancel()
    #expect(scheduler.run())
  }

  @Test func runWithARepeatingActionThatCancelsItself_finishes() {
    let log = SchedulerLog()
    let holder = TokenHolder()
    holder.token = scheduler.schedule(after: .init(0), interval: .seconds(1)) {
      log.append("tick")
      if log.entries.count == 4 { holder.token?.cancel() }
    }
    #expect(scheduler.run())
    #expect(log.entries.count == 4)
    #expect(scheduler.now == .init(3_000_000_000))
  }

  // MARK: Threads

  @Test func concurrentScheduling_runsEveryActionOnceInTimeOrder() {
    let log = SchedulerLog()
    let threads = 8
    let perThread = 500
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for index in 0..<perThread {
        let due = VirtualTime(index % 7)
        scheduler.schedule(after: due) {
          log.append("\(due.ticks) \(scheduler.now.ticks) \(thread)")
        }
      }
    }
    #expect(scheduler.pendingActionCount == threads * perThread)
    scheduler.advance(by: 10)
    let entries = log.entries
    #expect(entries.count == threads * perThread)
    let times = entries.map { Int($0.split(separator: " ")[1])! }
    #expect(times == times.sorted())
    #expect(entries.allSatisfy { $0.split(separator: " ")[0] == $0.split(separator: " ")[1] })
  }

  @Test func concurrentSchedulingWhileAdvancing_losesNothing() {
    let log = SchedulerLog()
    let perThread = 1_000
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for _ in 0..<perThread {
        if thread == 0 {
          scheduler.advance(by: 1)
        } else {
          scheduler.schedule { log.append("action") }
        }
      }
    }
    scheduler.advance()
    #expect(log.entries.count == 3 * perThread)
    #expect(scheduler.now == .init(perThread))
  }

  // MARK: Time and Stride

  @Test func strideUnits_areNanosecondTicks() {
    typealias Stride = VirtualTime.Stride
    #expect(Stride.seconds(1).magnitude == 1_000_000_000)
    #expect(Stride.seconds(1.5).magnitude == 1_500_000_000)
    #expect(Stride.milliseconds(3).magnitude == 3_000_000)
    #expect(Stride.microseconds(3).magnitude == 3_000)
    #expect(Stride.nanoseconds(3).magnitude == 3)
    #expect((7 as Stride).magnitude == 7)
    #expect((2.6 as Stride).magnitude == 3)
    #expect(Stride(exactly: 9)?.magnitude == 9)
    #expect(Stride(exactly: UInt64.max) == nil)
  }

  @Test func strideArithmetic_treatsLiteralsAsPlainNumbers() {
    typealias Stride = VirtualTime.Stride
    #expect(Stride.seconds(2) * 3 == .seconds(6))
    #expect(Stride.milliseconds(5) + 1 == Stride(5_000_001))
    #expect(Stride.milliseconds(5) - .milliseconds(6) == .milliseconds(-1))
    #expect(-Stride.seconds(1) == .seconds(-1))
    #expect(Stride.microseconds(1) < .milliseconds(1))
    var stride: Stride = 4
    stride += 2
    stride -= 1
    stride *= 10
    #expect(stride == 50)
  }

  @Test func strideConversions_saturate() {
    typealias Stride = VirtualTime.Stride
    #expect(Stride.seconds(Int.max).magnitude == .max)
    #expect(Stride.milliseconds(Int.min).magnitude == .min)
    #expect(Stride.seconds(1e300).magnitude == .max)
    #expect(Stride.seconds(-1e300).magnitude == .min)
  }

  @Test func time_measuresAndAdvancesInTicksAndSaturates() {
    let start = VirtualTime(10)
    #expect(start.advanced(by: 5) == .init(15))
    #expect(start.distance(to: .init(4)) == -6)
    #expect(start < start.advanced(by: 1))
    #expect(VirtualTime(.max).advanced(by: 1) == .init(.max))
    #expect(VirtualTime(.min).advanced(by: -1) == .init(.min))
    #expect(VirtualTime(.min).distance(to: .init(.max)).magnitude == .max)
    #expect(VirtualTime(.max).distance(to: .init(.min)).magnitude == .min)
  }

  @Test func timeAndStride_encodeAsASingleInt() throws {
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    let time = VirtualTime(123)
    let stride = VirtualTime.Stride.milliseconds(2)
    #expect(String(decoding: try encoder.encode(time), as: UTF8.self) == "123")
    #expect(String(decoding: try encoder.encode(stride), as: UTF8.self) == "2000000")
    #expect(try decoder.decode(VirtualTime.self, from: Data("123".utf8)) == time)
    #expect(try decoder.decode(VirtualTime.Stride.self, from: Data("2000000".utf8)) == stride)
  }

  @Test func genericSchedulerCode_runsOnVirtualTime() {
    let log = SchedulerLog()
    scheduleGreeting(on: scheduler, log: log)
    scheduler.advance(by: .milliseconds(299))
    #expect(log.entries.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(log.entries == ["hello"])
  }

  private func scheduleGreeting<S: Scheduler>(on scheduler: S, log: SchedulerLog) {
    scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(300))) {
      log.append("hello")
    }
  }
}

/// A thread-safe list of strings for actions to write to.
// Sendable: all mutable state is guarded by `lock`.
private final class SchedulerLog: @unchecked Sendable {
  private let lock = Lock()
  private var storage: [String] = []

  var entries: [String] { lock.withLock { storage } }

  func append(_ entry: String) {
    lock.withLock { storage.append(entry) }
  }
}

/// Holds a repeating action's cancellable so that the action can cancel itself.
// Sendable: all mutable state is guarded by `lock`.
private final class TokenHolder: @unchecked Sendable {
  private let lock = Lock()
  private var storage: (any Cancellable)?

  var token: (any Cancellable)? {
    get { lock.withLock { storage } }
    set { lock.withLock { storage = newValue } }
  }
}
