import Dispatch
import SignalOperators
import StreamCombineSchedulers
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TimerPublisherTests {
  @Test func autoconnected_ticksEveryIntervalWithTheSchedulersTime() {
    let scheduler = TestScheduler()
    let recorder = RecordingSubscriber<VirtualTime, Never>()
    scheduler.timerPublisher(every: .seconds(1)).autoconnect().subscribe(recorder)
    scheduler.advance(by: .milliseconds(2_500))
    #expect(recorder.values == [VirtualTime(1_000_000_000), VirtualTime(2_000_000_000)])
    #expect(recorder.completion == nil)
    recorder.cancel()
    scheduler.advance(by: .seconds(5))
    #expect(recorder.values.count == 2)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func beforeConnect_nothingTicks_andCancellingTheConnectionStopsTheTicks() {
    let scheduler = TestScheduler()
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let recorder = RecordingSubscriber<VirtualTime, Never>()
    timer.subscribe(recorder)
    scheduler.advance(by: .seconds(3))
    #expect(recorder.values == [])
    #expect(scheduler.pendingActionCount == 0)

    let connection = timer.connect()
    scheduler.advance(by: .seconds(2))
    #expect(recorder.values == [VirtualTime(4_000_000_000), VirtualTime(5_000_000_000)])
    connection.cancel()
    scheduler.advance(by: .seconds(2))
    #expect(recorder.values.count == 2)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func connectingTwice_sharesOneTimer() {
    let scheduler = TestScheduler()
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let recorder = RecordingSubscriber<VirtualTime, Never>()
    timer.subscribe(recorder)
    let first = timer.connect()
    let second = timer.connect()
    scheduler.advance(by: .seconds(1))
    #expect(recorder.values.count == 1)
    #expect(scheduler.pendingActionCount == 1)
    first.cancel()
    second.cancel()
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func releasingTheConnectionWithoutCancelling_keepsTheTimerRunning() {
    let scheduler = TestScheduler()
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let recorder = RecordingSubscriber<VirtualTime, Never>()
    timer.subscribe(recorder)
    _ = timer.connect()
    scheduler.advance(by: .seconds(2))
    #expect(recorder.values.count == 2)
    timer.connect().cancel()  // the running connection
    scheduler.advance(by: .seconds(2))
    #expect(recorder.values.count == 2)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func aSubscriberWithoutDemand_missesTicks() {
    let scheduler = TestScheduler()
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let recorder = RecordingSubscriber<VirtualTime, Never>(initialDemand: .max(1))
    timer.subscribe(recorder)
    let connection = timer.connect()
    scheduler.advance(by: .seconds(3))
    #expect(recorder.values == [VirtualTime(1_000_000_000)])
    recorder.request(.max(1))
    scheduler.advance(by: .seconds(1))
    #expect(recorder.values == [VirtualTime(1_000_000_000), VirtualTime(4_000_000_000)])
    connection.cancel()
  }

  @Test func onAnErasedTestQueue_ticksInDispatchTime() {
    let queue = DispatchQueue.test
    let scheduler = queue.eraseToAnyScheduler()
    let recorder = RecordingSubscriber<DispatchQueue.SchedulerTimeType, Never>()
    let timer = Publishers.Timer(every: .milliseconds(500), scheduler: scheduler)
    #expect(timer.interval == .milliseconds(500))
    #expect(timer.tolerance == nil)
    timer.autoconnect().subscribe(recorder)
    queue.advance(by: .seconds(1))
    #expect(recorder.values.map(\.dispatchTime.uptimeNanoseconds) == [500_000_001, 1_000_000_001])
    recorder.cancel()
  }

  @Test func asyncTimer_yieldsTheTimeEveryInterval_andStopsWhenIterationEnds() async {
    let scheduler = DispatchQueue.test
    // Scheduled before the task starts; only the task holds the stream, so the stream ends
    // (and the repeating action is cancelled) when the task is done with it.
    let received = Self.firstThree(of: scheduler.timer(interval: .seconds(1)))
    for _ in 0..<3 {
      await scheduler.advance(by: .seconds(1))
    }
    #expect(await received.value == [1_000_000_001, 2_000_000_001, 3_000_000_001])
    await scheduler.advance()
    #expect(scheduler.pendingActionCount == 0)
  }

  private static func firstThree(
    of ticks: AsyncStream<DispatchQueue.SchedulerTimeType>
  ) -> Task<[UInt64], Never> {
    Task {
      var times: [UInt64] = []
      for await now in ticks {
        times.append(now.dispatchTime.uptimeNanoseconds)
        if times.count == 3 { break }
      }
      return times
    }
  }

  @Test func sleep_cancelled_throwsAtOnce() async {
    let scheduler = DispatchQueue.test
    let sleeper = Task { try await scheduler.sleep(for: .seconds(60)) }
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
  }

  @Test func measure_returnsTheVirtualTimeTheWorkTook() {
    let scheduler = DispatchQueue.test
    let elapsed = scheduler.measure { scheduler.advance(by: .seconds(2)) }
    #expect(elapsed == .seconds(2))
  }
}
