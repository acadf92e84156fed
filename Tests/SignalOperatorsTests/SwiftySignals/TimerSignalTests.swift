import Dispatch
import Foundation
import SignalOperators
import StreamCombineSchedulers
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TimerSignalTests {
  let scheduler = DispatchQueue.test

  @Test func oneShot_firesOnceAfterTheDelay() {
    let timer = TimerSignal(repeats: false, scheduler: scheduler)
    let recorder = RecordingSubscriber<Void, Never>()
    timer.fired.subscribe(recorder)
    timer.fire(after: .seconds(2))
    scheduler.advance(by: .milliseconds(1_999))
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(recorder.values.count == 1)
    scheduler.advance(by: .seconds(10))
    #expect(recorder.values.count == 1)
  }

  @Test func repeating_firesEveryDelay() {
    let timer = TimerSignal(repeats: true, scheduler: scheduler)
    let recorder = RecordingSubscriber<Void, Never>()
    timer.fired.subscribe(recorder)
    timer.fire(after: .seconds(1))
    scheduler.advance(by: .milliseconds(3_500))
    #expect(recorder.values.count == 3)
  }

  @Test func fireAgain_restartsTheTimer() {
    let timer = TimerSignal(repeats: false, scheduler: scheduler)
    let recorder = RecordingSubscriber<Void, Never>()
    timer.fired.subscribe(recorder)
    timer.fire(after: .seconds(1))
    scheduler.advance(by: .milliseconds(900))
    timer.fire(after: .seconds(1))
    scheduler.advance(by: .milliseconds(900))
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: .milliseconds(100))
    #expect(recorder.values.count == 1)
    scheduler.advance(by: .seconds(5))
    #expect(recorder.values.count == 1)
  }

  @Test func repeatingRestart_dropsTheOldPeriod() {
    let timer = TimerSignal(repeats: true, scheduler: scheduler)
    let recorder = RecordingSubscriber<Void, Never>()
    timer.fired.subscribe(recorder)
    timer.fire(after: .seconds(1))
    timer.fire(after: .seconds(3))
    scheduler.advance(by: .seconds(6))
    #expect(recorder.values.count == 2)
  }

  @Test(arguments: [true, false])
  func disable_stopsTicks(repeats: Bool) {
    let timer = TimerSignal(repeats: repeats, scheduler: scheduler)
    let recorder = RecordingSubscriber<Void, Never>()
    timer.fired.subscribe(recorder)
    timer.fire(after: .seconds(1))
    scheduler.advance(by: .seconds(1))
    timer.disable()
    scheduler.advance(by: .seconds(5))
    #expect(recorder.values.count == 1)
    timer.fire(after: .seconds(1))
    scheduler.advance(by: .seconds(1))
    #expect(recorder.values.count == 2)
  }

  @Test func noReplay_lateSubscriberGetsOnlyLaterTicks() {
    let timer = TimerSignal(repeats: false, scheduler: scheduler)
    timer.fire(after: .seconds(1))
    scheduler.advance(by: .seconds(1))
    let recorder = RecordingSubscriber<Void, Never>()
    timer.fired.subscribe(recorder)
    #expect(recorder.values.isEmpty)
  }

  @Test func measurementDelay_convertsUnits() {
    let timer = TimerSignal(repeats: false, scheduler: scheduler)
    let recorder = RecordingSubscriber<Void, Never>()
    timer.fired.subscribe(recorder)
    timer.fire(after: Measurement(value: 250, unit: UnitDuration.milliseconds))
    scheduler.advance(by: .milliseconds(249))
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(recorder.values.count == 1)
  }

  @Test func release_stopsTimerAndFinishesSubscribers() {
    var timer: TimerSignal? = TimerSignal(repeats: true, scheduler: scheduler)
    weak let weakTimer = timer
    let recorder = RecordingSubscriber<Void, Never>()
    timer?.fired.subscribe(recorder)
    timer?.fire(after: .seconds(1))
    timer = nil
    #expect(weakTimer == nil)
    #expect(recorder.completion == .finished)
    scheduler.advance(by: .seconds(3))
    #expect(recorder.values.isEmpty)
  }

  // SwiftySignals fires its timers on the main run loop, and runs `then` on the main queue.
  @Test func defaultScheduler_ticksOnTheMainQueue() async {
    let timer = TimerSignal(repeats: false)
    let log = SwiftyLog<String>()
    let cancellable = timer.fired
      .then { log.append(SwiftyMainQueue.isCurrent ? "main" : "another queue") }
      .sink { _ in }
    timer.fire(after: .milliseconds(1))
    #expect(await log.wait(forCount: 1))
    #expect(log.entries == ["main"])
    cancellable.cancel()
  }

  @Test func noDispatch_movesTheTicksOffTheMainQueue() async {
    let timer = TimerSignal(repeats: false)
    let log = SwiftyLog<String>()
    let cancellable = timer.fired.noDispatch()
      .then { log.append(SwiftyMainQueue.isCurrent ? "main" : "private") }
      .sink { _ in }
    timer.fire(after: .milliseconds(1))
    #expect(await log.wait(forCount: 1))
    #expect(log.entries == ["private"])
    cancellable.cancel()
  }

  @Test func swiftySignalsSpellings_compile() {
    let named: TimerSignal = TimerSignal(repeats: true, tolerance: 0.1)
    #expect(named.tolerance == .milliseconds(100))
    let onMain = TimerSignal(repeats: false, scheduler: UIScheduler.shared)
    #expect(onMain.tolerance == .zero)
    let erased = TimerSignal(repeats: false, scheduler: AnySchedulerOf<DispatchQueue>.main)
    #expect(!erased.repeats)
  }
}
