import Dispatch
import Foundation
import SignalOperators
import StreamCore
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

  @Test func defaultScheduler_ticksOnItsOwnQueue_notMain() {
    let timer = TimerSignal(repeats: false)
    let label = LockedLabel()
    let ticked = DispatchSemaphore(value: 0)
    let cancellable = timer.fired.sink {
      label.set(Thread.isMainThread ? "main" : "another thread")
      ticked.signal()
    }
    timer.fire(after: .milliseconds(1))
    #expect(ticked.wait(timeout: .now() + 30) == .success)
    #expect(label.value == "another thread")
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

// Sendable: `storage` is guarded by `lock`.
private final class LockedLabel: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: String?
  var value: String? { lock.withLock { storage } }
  func set(_ label: String) { lock.withLock { storage = label } }
}
