import Dispatch
import PropertyWrappers
import StreamCore
import StreamShuttle
import Testing

@Suite(.timeLimit(.minutes(5))) struct ThreadingTests {
  /// Checks that a wrapper's closure runs on a global queue and never inside the call.
  ///
  /// The caller invokes the wrapper's closure from the target queue itself and signals
  /// `callReturned` only after it returns. The stored action waits (boundedly) for that signal:
  /// had it run inline, inside the call, the signal could not come and the wait would time out.
  /// That wait blocks a dispatch worker, not the test's task, and only until the caller's next
  /// statement.
  private final class HopProbe: Sendable {
    let qos: DispatchQoS.QoSClass
    let callReturned = DispatchSemaphore(value: 0)
    let finished = AsyncSignal()
    let hoppedFirst = LockedState<[Bool]>([])

    init(qos: DispatchQoS.QoSClass) {
      self.qos = qos
    }

    var action: SendableAction {
      { [self] in
        dispatchPrecondition(condition: .onQueue(.global(qos: qos)))
        let returned = callReturned.wait(timeout: .now() + 60) == .success
        hoppedFirst.withLock { $0.append(returned) }
        finished.signal()
      }
    }

    func expectHop(calling wrapped: @escaping SendableAction) async {
      DispatchQueue.global(qos: qos).async {
        wrapped()
        self.callReturned.signal()
      }
      #expect(await finished.wait())
      #expect(hoppedFirst.withLock { $0 } == [true])
    }
  }

  private func requireSendable<T: Sendable>(_: T.Type) {}

  // MARK: Main queue

  @Test func mainThreaded_runsOnTheMainQueue() async {
    let ran = AsyncSignal()
    let onMain = LockedState<[Bool]>([])
    @MainThreaded var action = {
      onMain.withLock { $0.append(MainQueueProbe.isCurrent) }
      ran.signal()
    }
    action()
    #expect(await ran.wait())
    #expect(onMain.withLock { $0 } == [true])
  }

  @MainActor @Test func mainThreaded_hopsEvenWhenCalledOnMain() async {
    let runs = LockedState<[Bool]>([])
    @MainThreaded var action = { runs.withLock { $0.append(MainQueueProbe.isCurrent) } }
    #expect(MainQueueProbe.isCurrent)
    action()
    #expect(runs.withLock { $0 }.isEmpty)
    await MainQueueProbe.drain()
    #expect(runs.withLock { $0 } == [true])
  }

  @MainActor @Test func mainThreaded_mayUseMainActorStateThroughAssumeIsolated() async {
    let model = MainActorCounter()
    @MainThreaded var increment = { MainActor.assumeIsolated { model.count += 1 } }
    increment()
    increment()
    await MainQueueProbe.drain()
    #expect(model.count == 2)
  }

  // MARK: Global queues

  @Test func backgroundThreaded_alwaysHopsToTheBackgroundQueue() async {
    let probe = HopProbe(qos: .background)
    @BackgroundThreaded var action = probe.action
    await probe.expectHop(calling: action)
  }

  @Test func userInitiatedThreaded_alwaysHopsToTheUserInitiatedQueue() async {
    let probe = HopProbe(qos: .userInitiated)
    @UserInitiatedThreaded var action = probe.action
    await probe.expectHop(calling: action)
  }

  @Test func utilityThreaded_alwaysHopsToTheUtilityQueue() async {
    let probe = HopProbe(qos: .utility)
    @UtilityThreaded var action = probe.action
    await probe.expectHop(calling: action)
  }

  @Test func defaultThreaded_alwaysHopsToTheDefaultQueue() async {
    let probe = HopProbe(qos: .default)
    @DefaultThreaded var action = probe.action
    await probe.expectHop(calling: action)
  }

  @Test func everyCall_schedulesAnotherRun() async {
    let runs = AsyncSignal()
    @UtilityThreaded var action = { runs.signal() }
    action()
    action()
    action()
    for _ in 0..<3 {
      #expect(await runs.wait())
    }
  }

  @Test func closureReadBeforeASet_keepsRunningTheOldAction() async {
    let runs = LockedState<[String]>([])
    let done = AsyncSignal()
    @DefaultThreaded var action = {
      runs.withLock { $0.append("old") }
      done.signal()
    }
    let readBefore = action
    action = {
      runs.withLock { $0.append("new") }
      done.signal()
    }
    readBefore()
    #expect(await done.wait())
    action()
    #expect(await done.wait())
    #expect(runs.withLock { $0 } == ["old", "new"])
  }

  // MARK: Delayed

  @Test func delayed_runsOnTheGivenQueueAfterTheDelay() async {
    let queue = DispatchQueue(label: "delayed")
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    let ran = AsyncSignal()
    let record = LockedState<[(onQueue: Bool, elapsed: UInt64)]>([])
    let start = LockedState(DispatchTime.now())
    @Delayed(30, thread: queue) var action = {
      let elapsed = DispatchTime.now().uptimeNanoseconds - start.withLock { $0.uptimeNanoseconds }
      record.withLock { $0.append((DispatchQueue.getSpecific(key: key) ?? false, elapsed)) }
      ran.signal()
    }
    start.withLock { $0 = .now() }
    action()
    #expect(await ran.wait())
    let runs = record.withLock { $0 }
    #expect(runs.count == 1)
    #expect(runs.first?.onQueue == true)
    #expect((runs.first?.elapsed ?? 0) >= 30_000_000)
  }

  @Test func delayed_defaultsToTheMainQueue() async {
    let ran = AsyncSignal()
    let onMain = LockedState<[Bool]>([])
    @Delayed(1) var action = {
      onMain.withLock { $0.append(MainQueueProbe.isCurrent) }
      ran.signal()
    }
    #expect(_action.thread.label == DispatchQueue.main.label)
    #expect(_action.milliseconds == 1)
    action()
    #expect(await ran.wait())
    #expect(onMain.withLock { $0 } == [true])
  }

  @Test(arguments: [0, -5])
  func delayed_noDelayStillRunsAsynchronously(milliseconds: Int) async {
    let queue = DispatchQueue(label: "delayed")
    let ran = AsyncSignal()
    let runs = LockedState(0)
    @Delayed(milliseconds, thread: queue) var action = {
      runs.withLock { $0 += 1 }
      ran.signal()
    }
    // `queue` is serial and busy with this block, so a run can only be scheduled, not inline.
    let ranInline = queue.sync {
      action()
      return runs.withLock { $0 } > 0
    }
    #expect(!ranInline)
    #expect(await ran.wait())
  }

  @Test func delayed_hugeDelaySaturatesInsteadOfOverflowing() async {
    let queue = DispatchQueue(label: "delayed")
    let runs = LockedState<[String]>([])
    let ran = AsyncSignal()
    @Delayed(.max, thread: queue) var never = { runs.withLock { $0.append("never") } }
    @Delayed(0, thread: queue) var soon = {
      runs.withLock { $0.append("soon") }
      ran.signal()
    }
    never()
    soon()
    #expect(await ran.wait())
    #expect(runs.withLock { $0 } == ["soon"])
  }

  @Test func delayed_everyCallSchedulesAnotherRun() async {
    let ran = AsyncSignal()
    @Delayed(5, thread: .global()) var action = { ran.signal() }
    action()
    action()
    for _ in 0..<2 {
      #expect(await ran.wait())
    }
  }

  @Test func wrappers_areSendable() {
    requireSendable(MainThreaded.self)
    requireSendable(BackgroundThreaded.self)
    requireSendable(UserInitiatedThreaded.self)
    requireSendable(UtilityThreaded.self)
    requireSendable(DefaultThreaded.self)
    requireSendable(Delayed.self)
  }
}

@MainActor private final class MainActorCounter {
  var count = 0
}
