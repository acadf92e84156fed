import Foundation
import SignalOperators
import StreamCombineSchedulers
import StreamConbini
import StreamCore
import StreamFoundation
import StreamSnail
import StreamSwiftySignals
import Testing

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

@Suite(.timeLimit(.minutes(5)))
struct RunLoopSchedulerTests {
  @Test func schedule_runsOnTheRunLoopsThread() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let ran = Collected<Bool>()
    thread.runLoop.schedule { ran.append(thread.isCurrent) }
    #expect(await ran.wait(for: 1))
    #expect(ran.items == [true])
  }

  @Test func actionsScheduledForNow_runInTheOrderScheduled() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let scheduler = thread.runLoop
    let order = Collected<Int>()
    for index in 0..<100 {
      scheduler.schedule { order.append(index) }
    }
    #expect(await order.wait(for: 100))
    #expect(order.items == Array(0..<100))
  }

  @Test func scheduleAfter_runsInDueOrder_notInTheOrderScheduled() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let scheduler = thread.runLoop
    let order = Collected<String>()
    let now = scheduler.now
    scheduler.schedule(after: now.advanced(by: .milliseconds(40))) { order.append("late") }
    scheduler.schedule(after: now.advanced(by: .milliseconds(10)), tolerance: .milliseconds(1)) {
      order.append("early")
    }
    scheduler.schedule { order.append("now") }
    #expect(await order.wait(for: 3))
    // "now" may come before or after "early" on a loaded machine: both are due by then.
    #expect(order.items.filter { $0 != "now" } == ["early", "late"])
    #expect(order.items.contains("now"))
    #expect(scheduler.now.date >= now.date.addingTimeInterval(0.04))
  }

  @Test func aRepeatingAction_runsUntilCancelled() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let scheduler = thread.runLoop
    let ticks = Collected<Int>()
    let stopped = Collected<Int>()
    let counter = Collected<Void>()
    // `AnyCancellable` is `Sendable`, so the token can be cancelled from the loop's thread.
    let token = AnyCancellable(
      scheduler.schedule(after: scheduler.now, interval: .milliseconds(5)) {
        counter.append(())
        ticks.append(counter.items.count)
      }
    )
    #expect(await ticks.wait(for: 3))
    // Cancel on the loop's own thread, then let one more action through the loop: no tick
    // comes after the cancel.
    scheduler.schedule {
      token.cancel()
      stopped.append(ticks.items.count)
    }
    #expect(await stopped.wait(for: 1))
    let marker = Collected<Void>()
    scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(30))) { marker.append(()) }
    #expect(await marker.wait(for: 1))
    #expect(ticks.items.count == stopped.items[0])
  }

  @Test func releasingTheRepeatingToken_stopsIt() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let scheduler = thread.runLoop
    let ticks = Collected<Void>()
    let released = Collected<Int>()
    do {
      let token = scheduler.schedule(after: scheduler.now, interval: .milliseconds(5)) {
        ticks.append(())
      }
      #expect(await ticks.wait(for: 2))
      _ = token
    }
    scheduler.schedule { released.append(ticks.items.count) }
    #expect(await released.wait(for: 1))
    let marker = Collected<Void>()
    scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(30))) { marker.append(()) }
    #expect(await marker.wait(for: 1))
    #expect(ticks.items.count == released.items[0])
  }

  @Test func receiveOnARunLoop_deliversThereInOrder() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let subject = PassthroughSubject<Int, Never>()
    let seen = Collected<String>()
    let cancellable = subject.receive(on: thread.runLoop).sink(
      receiveCompletion: { _ in seen.append("finished on loop: \(thread.isCurrent)") },
      receiveValue: { seen.append("\($0) on loop: \(thread.isCurrent)") }
    )
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(await seen.wait(for: 3))
    #expect(seen.items == ["1 on loop: true", "2 on loop: true", "finished on loop: true"])
    cancellable.cancel()
  }

  @Test func debounceOnARunLoop_sendsTheLatestValueAfterAQuietPeriod() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let subject = PassthroughSubject<Int, Never>()
    let seen = Collected<Int>()
    let cancellable = subject.debounce(for: .milliseconds(20), scheduler: thread.runLoop)
      .sink { seen.append($0) }
    // Sent from one action on the loop's thread, so the debounce cannot fire between them.
    thread.runLoop.schedule {
      subject.send(1)
      subject.send(2)
      subject.send(3)
    }
    #expect(await seen.wait(for: 1))
    #expect(seen.items == [3])
    cancellable.cancel()
  }

  @Test func theOtherRunLoopOverloads_compileAndRun() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let loop = thread.runLoop
    let seen = Collected<String>()
    let cancellables = [
      Just(1).subscribe(on: loop).sink { seen.append("subscribe(on:) \($0)") },
      Just(2).delay(for: .milliseconds(1), scheduler: loop).sink { seen.append("delay \($0)") },
      // As Combine's, `throttle` asks the upstream before its subscriber has asked for
      // anything, so `Just`'s value finds no demand and only the completion comes through.
      Just(3).throttle(for: 1, scheduler: loop, latest: true).sink(
        receiveCompletion: { _ in seen.append("throttle finished") },
        receiveValue: { seen.append("throttle \($0)") }
      ),
      Just(4).timeout(5, scheduler: loop).sink { seen.append("timeout \($0)") },
      Just(5).measureInterval(using: loop).sink { seen.append("measured \($0.timeInterval >= 0)") },
    ]
    #expect(await seen.wait(for: 5))
    #expect(
      Set(seen.items) == [
        "subscribe(on:) 1", "delay 2", "throttle finished", "timeout 4", "measured true",
      ]
    )
    _ = cancellables
  }

  @Test func theRunLoopsOwnScheduleMethods_forwardToItsScheduler() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let loop = thread.runLoop
    let order = Collected<String>()
    let ticks = Collected<Void>()
    loop.schedule { order.append("now on loop: \(thread.isCurrent)") }
    loop.schedule(after: loop.now.advanced(by: .milliseconds(5))) { order.append("later") }
    let ticking = loop.schedule(after: loop.now, interval: .milliseconds(5)) { ticks.append(()) }
    #expect(await order.wait(for: 2))
    #expect(await ticks.wait(for: 2))
    ticking.cancel()
    #expect(order.items.contains("now on loop: true"))
    #expect(order.items.contains("later"))
  }

  @Test func aRunLoopsSchedulerTypes_areCombines() {
    let scheduler: AnySchedulerOf<RunLoop> = .main
    let start = RunLoop.SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 10))
    let erased: AnySchedulerOf<RunLoop> = RunLoop.main.eraseToAnyScheduler()
    #expect(start.advanced(by: .seconds(2)).date == Date(timeIntervalSinceReferenceDate: 12))
    #expect(abs(scheduler.now.date.timeIntervalSinceNow) < 60)
    #expect(abs(erased.now.date.timeIntervalSinceNow) < 60)
    #expect(RunLoop.main.minimumTolerance == 0)
  }

  @Test func immediate_runsAtOnce_atAFixedTime() {
    let scheduler = RunLoop.immediate
    let erased: AnySchedulerOf<RunLoop> = .immediate
    let before = scheduler.now
    let ran = Collected<String>()
    scheduler.schedule { ran.append("now") }
    scheduler.schedule(after: before.advanced(by: 100)) { ran.append("later") }
    erased.schedule { ran.append("erased") }
    #expect(ran.items == ["now", "later", "erased"])
    #expect(scheduler.now == before)
  }
}

#endif
