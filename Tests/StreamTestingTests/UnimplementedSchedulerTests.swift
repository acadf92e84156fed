import Dispatch
import StreamCombineSchedulers
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct UnimplementedSchedulerTests {
  @Test func scheduling_recordsAnIssueNamingTheScheduler_andStillRunsTheAction() {
    let scheduler = DispatchQueue.unimplemented("search")
    let ran = Flag()
    withKnownIssue {
      scheduler.schedule { ran.set() }
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue == "search: an unimplemented scheduler scheduled an action to run at once."
      }
    }
    #expect(ran.isSet)
  }

  @Test func everyRequirement_recordsOneIssue() {
    let scheduler = DispatchQueue.unimplemented
    let count = Counter()
    withKnownIssue {
      _ = scheduler.now
      _ = scheduler.minimumTolerance
      scheduler.schedule(after: .init(.init(uptimeNanoseconds: 5)), tolerance: .zero, options: nil)
      {
        count.increment()
      }
      scheduler.schedule(
        after: .init(.init(uptimeNanoseconds: 5)),
        interval: .seconds(1),
        tolerance: .zero,
        options: nil
      ) { count.increment() }.cancel()
    } matching: { issue in
      issue.comments.contains { $0.rawValue.hasPrefix("DispatchQueue: an unimplemented scheduler") }
    }
    #expect(count.value == 2)
  }

  @Test func erased_intoCodeTypedOnAQueue_reportsWhenThatCodeSchedules() {
    let scheduler: AnySchedulerOf<DispatchQueue> = DispatchQueue.unimplemented.eraseToAnyScheduler()
    withKnownIssue {
      scheduler.schedule {}
    }
  }

  @Test func notScheduling_recordsNothing() {
    let scheduler = UnimplementedSchedulerOf<DispatchQueue>(now: .init(.init(uptimeNanoseconds: 1)))
    #expect(scheduler.prefix == "")
  }
}

// Sendable: `storage` is guarded by `lock`.
private final class Flag: @unchecked Sendable {
  private let lock = Lock()
  private var storage = false
  var isSet: Bool { lock.withLock { storage } }
  func set() { lock.withLock { storage = true } }
}

// Sendable: `storage` is guarded by `lock`.
private final class Counter: @unchecked Sendable {
  private let lock = Lock()
  private var storage = 0
  var value: Int { lock.withLock { storage } }
  func increment() { lock.withLock { storage += 1 } }
}
