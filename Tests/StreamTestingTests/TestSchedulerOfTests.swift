import Dispatch
import SignalOperators
import StreamCombineSchedulers
import StreamCore
import StreamTesting
import Testing

/// `TestScheduler` standing in for other schedulers: `DispatchQueue.test`, erased to
/// `AnySchedulerOf<DispatchQueue>`, and its `async` forms.
@Suite(.timeLimit(.minutes(5))) struct TestSchedulerOfTests {
  @Test func dispatchTest_startsAtOneNanosecondAndMovesOnlyWhenAdvanced() {
    let scheduler = DispatchQueue.test
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 1)
    scheduler.advance(by: .seconds(2))
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 2_000_000_001)
  }

  @Test func dispatchTest_integerLiteralsCountSeconds_asADispatchQueuesDo() {
    let scheduler = DispatchQueue.test
    let log = Lines()
    scheduler.schedule(after: scheduler.now.advanced(by: 1)) { log.append("one second") }
    scheduler.advance(by: .milliseconds(999))
    #expect(log.entries == [])
    scheduler.advance(by: .milliseconds(1))
    #expect(log.entries == ["one second"])
  }

  @Test func viewModel_typedOnAnErasedQueue_isDrivenByTheTestScheduler() {
    let scheduler = DispatchQueue.test
    let model = SearchModel(scheduler: scheduler.eraseToAnyScheduler())
    model.query.send("s")
    model.query.send("sw")
    scheduler.advance(by: .milliseconds(299))
    #expect(model.searches.entries == [])
    scheduler.advance(by: .milliseconds(1))
    #expect(model.searches.entries == ["sw"])
  }

  @Test func repeating_onDispatchTime_runsOncePerInterval() {
    let scheduler = DispatchQueue.test
    let log = Lines()
    let token = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {
      log.append("tick")
    }
    scheduler.advance(by: .seconds(3))
    #expect(log.entries.count == 4)
    token.cancel()
    scheduler.advance(by: .seconds(3))
    #expect(log.entries.count == 4)
  }

  @Test func zeroInterval_countsAsOneNanosecond_soAdvanceEnds() {
    let scheduler = DispatchQueue.test
    let log = Lines()
    let token = scheduler.schedule(after: scheduler.now, interval: .zero) { log.append("tick") }
    scheduler.advance(by: .nanoseconds(4))
    #expect(log.entries.count == 5)
    token.cancel()
  }

  @Test func optionsAreAcceptedAndIgnored() {
    let scheduler = DispatchQueue.test
    let log = Lines()
    scheduler.schedule(options: .init(qos: .background)) { log.append("ran") }
    scheduler.advance()
    #expect(log.entries == ["ran"])
  }

  @Test func immediateTest_runsOnAdvanceAndNowStays() {
    let scheduler = ImmediateScheduler.test
    let log = Lines()
    scheduler.schedule { log.append("ran") }
    #expect(log.entries == [])
    scheduler.advance()
    #expect(log.entries == ["ran"])
    #expect(scheduler.now == ImmediateScheduler.shared.now)
  }

  @Test func typeSpellings_nameTheSameScheduler() {
    let explicit: TestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions> =
      DispatchQueue.test
    let short: TestSchedulerOf<DispatchQueue> = explicit
    let virtual: VirtualTimeScheduler = TestScheduler()
    #expect(short === explicit)
    #expect(virtual.now == VirtualTime(0))
  }

  // MARK: async forms

  @MainActor @Test func asyncAdvance_letsATaskStartedByAnActionRunBeforeItReturns() async {
    let scheduler = DispatchQueue.test
    let log = Lines()
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) {
      Task { log.append("task ran") }
    }
    await scheduler.advance(by: .seconds(1))
    #expect(log.entries == ["task ran"])
  }

  @Test func asyncAdvance_wakesATaskSleepingOnTheVirtualClock() async throws {
    let scheduler = DispatchQueue.test
    let log = Lines()
    let sleeper = Task {
      try await scheduler.sleep(for: .seconds(5))
      log.append("woke at \(scheduler.now.dispatchTime.uptimeNanoseconds)")
    }
    while scheduler.pendingActionCount == 0 {  // the sleep has not been scheduled yet
      await Task.yield()
    }
    await scheduler.advance(by: .seconds(4))
    #expect(log.entries == [])
    await scheduler.advance(by: .seconds(1))
    try await sleeper.value
    #expect(log.entries == ["woke at 5000000001"])
  }

  @Test func asyncRun_runsEverythingAndStopsAtTheLimit() async {
    let scheduler = DispatchQueue.test
    let log = Lines()
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(3))) { log.append("3") }
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append("1") }
    let finished = await scheduler.run()
    #expect(finished)
    #expect(log.entries == ["1", "3"])
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 3_000_000_001)

    let token = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
    let stopped = await scheduler.run(limit: 10)
    #expect(!stopped)
    token.cancel()
  }
}

/// A view model as a Combine codebase writes it: the scheduler is injected, erased.
private final class SearchModel: Sendable {
  let query = PassthroughSubject<String, Never>()
  let searches = Lines()
  private let cancellable: AnyCancellable

  init(scheduler: AnySchedulerOf<DispatchQueue>) {
    let searches = searches
    cancellable =
      query
      .debounce(for: .milliseconds(300), scheduler: scheduler)
      .sink { searches.append($0) }
  }
}

/// A thread-safe list of strings.
// Sendable: all mutable state is guarded by `lock`.
private final class Lines: @unchecked Sendable {
  private let lock = Lock()
  private var storage: [String] = []
  var entries: [String] { lock.withLock { storage } }
  func append(_ line: String) { lock.withLock { storage.append(line) } }
}
