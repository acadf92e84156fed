import Dispatch
import Foundation
import StreamCore
import Testing

// Real-time tests: they wait for events with generous timeouts and never sleep for correctness.
// The only fixed waits check that a cancelled timer stays quiet, by waiting for a later action on
// the same serial queue.
@Suite(.timeLimit(.minutes(5))) struct DispatchQueueSchedulerTests {
  private let queue = DispatchQueue(label: "DispatchQueueSchedulerTests")
  private let key = DispatchSpecificKey<String>()
  /// Generous: each wait ends as soon as its event comes, and a loaded machine may be slow.
  private let timeout = DispatchTime.now() + .seconds(60)

  init() {
    queue.setSpecific(key: key, value: "scheduler")
  }

  private func isOnQueue() -> Bool {
    DispatchQueue.getSpecific(key: key) == "scheduler"
  }

  // MARK: - now and tolerance

  @Test func now_isTheCurrentDispatchTime() {
    let before = DispatchTime.now()
    let now = queue.now
    let after = DispatchTime.now()
    #expect(before <= now.dispatchTime)
    #expect(now.dispatchTime <= after)
  }

  @Test func minimumTolerance_isZeroNanoseconds() {
    #expect(queue.minimumTolerance == .nanoseconds(0))
    #expect(queue.minimumTolerance.magnitude == 0)
  }

  @Test func defaultOptions_areUnspecifiedEmptyAndGroupless() {
    let options = DispatchQueue.SchedulerOptions()
    #expect(options.qos == .unspecified)
    #expect(options.flags == [])
    #expect(options.group == nil)
  }

  // MARK: - schedule(options:)

  @Test func schedule_runsTheActionOnTheQueue() {
    let log = QueueLog<Bool>()
    let done = DispatchSemaphore(value: 0)
    queue.schedule {
      log.append(isOnQueue())
      done.signal()
    }
    #expect(done.wait(timeout: timeout) == .success)
    #expect(log.entries == [true])
  }

  @Test func schedule_returnsBeforeTheActionRuns() {
    let log = QueueLog<String>()
    let done = DispatchSemaphore(value: 0)
    queue.sync {
      queue.schedule {
        log.append("action")
        done.signal()
      }
      log.append("returned")
    }
    #expect(done.wait(timeout: timeout) == .success)
    #expect(log.entries == ["returned", "action"])
  }

  @Test func schedule_serialQueue_runsActionsInOrder() {
    let log = QueueLog<Int>()
    let group = DispatchGroup()
    for index in 0..<100 {
      group.enter()
      queue.schedule {
        log.append(index)
        group.leave()
      }
    }
    #expect(group.wait(timeout: timeout) == .success)
    #expect(log.entries == Array(0..<100))
  }

  @Test func scheduleWithGroupOption_runsTheActionInTheGroup() {
    let log = QueueLog<Bool>()
    let group = DispatchGroup()
    queue.schedule(options: DispatchQueue.SchedulerOptions(qos: .utility, group: group)) {
      log.append(isOnQueue())
    }
    #expect(group.wait(timeout: timeout) == .success)
    #expect(log.entries == [true])
  }

  @Test func scheduleWithBarrierFlag_runsAfterEarlierWorkOnAConcurrentQueue() {
    let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
    let log = QueueLog<String>()
    let done = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    concurrent.async {
      _ = release.wait(timeout: .now() + .seconds(10))
      log.append("earlier")
    }
    concurrent.schedule(options: DispatchQueue.SchedulerOptions(flags: .barrier)) {
      log.append("barrier")
      done.signal()
    }
    release.signal()
    #expect(done.wait(timeout: timeout) == .success)
    #expect(log.entries == ["earlier", "barrier"])
  }

  // MARK: - schedule(after:)

  @Test func scheduleAfter_runsOnTheQueueNotBeforeTheDeadline() {
    let log = QueueLog<Bool>()
    let done = DispatchSemaphore(value: 0)
    let deadline = queue.now.advanced(by: .milliseconds(20))
    queue.schedule(after: deadline) {
      log.append(isOnQueue())
      log.append(DispatchTime.now() >= deadline.dispatchTime)
      done.signal()
    }
    #expect(done.wait(timeout: timeout) == .success)
    #expect(log.entries == [true, true])
  }

  @Test func scheduleAfterWithToleranceAndOptions_runsNotBeforeTheDeadline() {
    let log = QueueLog<Bool>()
    let done = DispatchSemaphore(value: 0)
    let deadline = queue.now.advanced(by: .milliseconds(10))
    queue.schedule(
      after: deadline,
      tolerance: .milliseconds(5),
      options: DispatchQueue.SchedulerOptions(qos: .userInitiated)
    ) {
      log.append(isOnQueue())
      log.append(DispatchTime.now() >= deadline.dispatchTime)
      done.signal()
    }
    #expect(done.wait(timeout: timeout) == .success)
    #expect(log.entries == [true, true])
  }

  @Test func scheduleAfterAPastDate_runsSoon() {
    let done = DispatchSemaphore(value: 0)
    queue.schedule(after: queue.now.advanced(by: .seconds(-1))) { done.signal() }
    #expect(done.wait(timeout: timeout) == .success)
  }

  /// The later deadline is scheduled first. The late action could only come first if this
  /// thread stalled between the two calls until the late deadline, so the deadlines are half a
  /// second apart, and a try in which the two calls took more than 400 ms proves nothing and is
  /// repeated (up to five times).
  @Test func scheduleAfterDifferentDeadlines_runsInDeadlineOrder() {
    for _ in 0..<5 {
      let log = QueueLog<String>()
      let group = DispatchGroup()
      let start = queue.now
      let late = start.advanced(by: .milliseconds(500))
      for (name, date) in [("late", late), ("early", start.advanced(by: .milliseconds(5)))] {
        group.enter()
        queue.schedule(after: date) {
          log.append(name)
          group.leave()
        }
      }
      let scheduled = queue.now
      #expect(group.wait(timeout: timeout) == .success)
      if scheduled < late.advanced(by: .milliseconds(-100)) {
        #expect(log.entries == ["early", "late"])
        return
      }
    }
    Issue.record("each of five tries took over 400 ms to schedule two actions")
  }

  // MARK: - schedule(after:interval:)

  @Test func repeating_firesSeveralTimesOnTheQueue() {
    let log = QueueLog<Bool>()
    let fired = DispatchSemaphore(value: 0)
    let token = queue.schedule(after: queue.now, interval: .milliseconds(2)) {
      log.append(isOnQueue())
      fired.signal()
    }
    for _ in 0..<3 {
      #expect(fired.wait(timeout: timeout) == .success)
    }
    token.cancel()
    queue.sync {}
    #expect(log.entries.count >= 3)
    #expect(log.entries.allSatisfy { $0 })
  }

  @Test func repeating_firstFiresNotBeforeTheDate() {
    let log = QueueLog<Bool>()
    let fired = DispatchSemaphore(value: 0)
    let date = queue.now.advanced(by: .milliseconds(20))
    let token = queue.schedule(
      after: date,
      interval: .milliseconds(5),
      tolerance: .milliseconds(1),
      options: DispatchQueue.SchedulerOptions(qos: .utility)
    ) {
      log.append(DispatchTime.now() >= date.dispatchTime)
      fired.signal()
    }
    #expect(fired.wait(timeout: timeout) == .success)
    token.cancel()
    queue.sync {}
    #expect(log.entries.first == true)
  }

  @Test func repeating_returnsAnAnyCancellable() {
    let token = queue.schedule(after: queue.now.advanced(by: 60), interval: 60) {}
    #expect(token is AnyCancellable)
    token.cancel()
  }

  @Test func repeating_cancel_stopsTheTimer() {
    let counter = QueueLog<Int>()
    let fired = DispatchSemaphore(value: 0)
    let token = queue.schedule(after: queue.now, interval: .milliseconds(2)) {
      counter.append(1)
      fired.signal()
    }
    for _ in 0..<2 {
      #expect(fired.wait(timeout: timeout) == .success)
    }
    token.cancel()
    expectNoMoreFires(counter)
  }

  @Test func repeating_cancelTwice_isHarmless() {
    let counter = QueueLog<Int>()
    let fired = DispatchSemaphore(value: 0)
    let token = queue.schedule(after: queue.now, interval: .milliseconds(2)) {
      counter.append(1)
      fired.signal()
    }
    #expect(fired.wait(timeout: timeout) == .success)
    token.cancel()
    token.cancel()
    expectNoMoreFires(counter)
    #expect(!counter.entries.isEmpty)
  }

  @Test func repeating_releasingTheCancellable_stopsTheTimer() {
    let counter = QueueLog<Int>()
    let fired = DispatchSemaphore(value: 0)
    var token: (any Cancellable)? = queue.schedule(after: queue.now, interval: .milliseconds(2)) {
      counter.append(1)
      fired.signal()
    }
    for _ in 0..<2 {
      #expect(fired.wait(timeout: timeout) == .success)
    }
    #expect(token != nil)
    token = nil
    expectNoMoreFires(counter)
  }

  @Test func repeatingWithNeverInterval_firesOnce() {
    let counter = QueueLog<Int>()
    let fired = DispatchSemaphore(value: 0)
    let token = queue.schedule(after: queue.now, interval: .init(.never)) {
      counter.append(1)
      fired.signal()
    }
    #expect(fired.wait(timeout: timeout) == .success)
    expectNoMoreFires(counter)
    token.cancel()
  }

  /// Checks that `counter` stops growing: drains any handler already running, then waits for an
  /// action scheduled well after several would-be timer intervals on the same serial queue.
  private func expectNoMoreFires(_ counter: QueueLog<Int>) {
    queue.sync {}
    let count = counter.entries.count
    let done = DispatchSemaphore(value: 0)
    queue.schedule(after: queue.now.advanced(by: .milliseconds(30))) { done.signal() }
    #expect(done.wait(timeout: timeout) == .success)
    #expect(counter.entries.count == count)
  }

  // MARK: - SchedulerTimeType

  @Test func timeAdvancedBy_addsNanoseconds() {
    let start = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 5_000_000_000))
    #expect(start.advanced(by: .milliseconds(250)).dispatchTime.uptimeNanoseconds == 5_250_000_000)
    #expect(start.advanced(by: .seconds(-2)).dispatchTime.uptimeNanoseconds == 3_000_000_000)
    #expect(start.advanced(by: 0) == start)
  }

  @Test func timeDistanceTo_isSignedNanoseconds() {
    let early = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1_000))
    let late = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 3_500))
    #expect(early.distance(to: late) == .nanoseconds(2_500))
    #expect(late.distance(to: early) == .nanoseconds(-2_500))
    #expect(early.distance(to: early) == .zero)
  }

  @Test func timeAdvancedByDistance_roundTrips() {
    let start = queue.now
    let end = start.advanced(by: .microseconds(1_234))
    #expect(start.distance(to: end) == .microseconds(1_234))
    #expect(start.advanced(by: start.distance(to: end)) == end)
  }

  @Test func distanceBeyondIntMax_isIntMaxInEitherDirection_asInCombine() {
    let start = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
    let future = DispatchQueue.SchedulerTimeType(.distantFuture)
    #expect(start.distance(to: future).magnitude == .max)
    #expect(future.distance(to: start).magnitude == .max)
    let farthest = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: UInt64(Int.max)))
    #expect(farthest.distance(to: start).magnitude == -(Int.max - 1))  // still fits: negative
  }

  @Test func stride_encodesUnderCombinesKey() throws {
    let data = try JSONEncoder().encode(DispatchQueue.SchedulerTimeType.Stride.nanoseconds(419_872))
    #expect(String(decoding: data, as: UTF8.self) == #"{"_nanoseconds":419872}"#)
    let decoded = try JSONDecoder().decode(DispatchQueue.SchedulerTimeType.Stride.self, from: data)
    #expect(decoded == .nanoseconds(419_872))
  }

  @Test func timeAdvancedByNever_isTheDistantFuture() {
    let start = queue.now
    #expect(start.advanced(by: .init(.never)).dispatchTime == .distantFuture)
    #expect(start.advanced(by: .nanoseconds(.max)).dispatchTime == .distantFuture)
  }

  @Test func timeStride_usesTheSchedulerStride() {
    let times = Array(
      stride(
        from: DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 10)),
        to: DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 40)),
        by: .nanoseconds(10)
      )
    )
    #expect(times.map(\.dispatchTime.uptimeNanoseconds) == [10, 20, 30])
  }

  @Test func timeComparison_followsDispatchTime() {
    let early = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 100))
    let late = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 200))
    #expect(early < late)
    #expect(!(late < early))
    #expect(early == DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 100)))
    #expect(early != late)
  }

  @Test func timeHashable_equalTimesHashEqually() {
    let time = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 42))
    let same = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 42))
    let other = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 43))
    #expect(Set([time, same, other]).count == 2)
  }

  @Test func timeCodable_encodesUptimeNanosecondsAndRoundTrips() throws {
    let time = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 123_456_789))
    let data = try JSONEncoder().encode(time)
    #expect(String(decoding: data, as: UTF8.self) == "123456789")
    let decoded = try JSONDecoder().decode(DispatchQueue.SchedulerTimeType.self, from: data)
    #expect(decoded == time)
  }

  @Test func timeCodableInAContainer_roundTrips() throws {
    let times = [queue.now, DispatchQueue.SchedulerTimeType(.distantFuture)]
    let data = try JSONEncoder().encode(times)
    let decoded = try JSONDecoder().decode([DispatchQueue.SchedulerTimeType].self, from: data)
    #expect(decoded == times)
  }
}

private final class QueueLog<Entry: Sendable>: Sendable {
  private let storage = LockedState<[Entry]>([])

  var entries: [Entry] { storage.withLock { $0 } }

  func append(_ entry: Entry) {
    storage.withLock { $0.append(entry) }
  }
}
