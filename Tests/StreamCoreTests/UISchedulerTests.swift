import Dispatch
import StreamCombineSchedulers
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct UISchedulerTests {
  @MainActor @Test func fromTheMainQueue_runsAtOnce() async {
    let ranInline = await withCheckedContinuation { continuation in
      DispatchQueue.main.async {
        let log = Log()
        UIScheduler.shared.schedule { log.append("ran") }
        continuation.resume(returning: log.entries == ["ran"])
      }
    }
    #expect(ranInline)
  }

  @Test func fromAnotherThread_hopsToTheMainQueue() async {
    // Scheduled from a global queue, the action runs on the main queue: it hopped, since it
    // can't have run inline there. (Which of the two threads gets on first is not fixed.)
    let onMain = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        UIScheduler.shared.schedule {
          continuation.resume(returning: isOnMainQueue())
        }
      }
    }
    #expect(onMain)
  }

  @Test func delayed_runsOnTheMainQueue() async {
    let onMain = await withCheckedContinuation { continuation in
      let scheduler = UIScheduler.shared
      scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(1))) {
        continuation.resume(returning: isOnMainQueue())
      }
    }
    #expect(onMain)
  }

  @Test func erased_isTheSharedInstance() {
    let scheduler: AnySchedulerOf<UIScheduler> = .shared
    #expect(scheduler.minimumTolerance == DispatchQueue.main.minimumTolerance)
  }
}

/// Whether the caller is on the main queue, by a mark only the main queue carries.
private func isOnMainQueue() -> Bool {
  DispatchQueue.getSpecific(key: mainMark) == 7
}

private let mainMark: DispatchSpecificKey<Int> = {
  let key = DispatchSpecificKey<Int>()
  DispatchQueue.main.setSpecific(key: key, value: 7)
  return key
}()
