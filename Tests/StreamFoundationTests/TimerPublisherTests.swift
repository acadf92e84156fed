import Foundation
import SignalOperators
import StreamConbini
import StreamCore
import StreamFoundation
import StreamSnail
import StreamSwiftySignals
import StreamTesting
import Testing

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

@Suite(.timeLimit(.minutes(5)))
struct TimerPublisherTests {
  // Issue 15: as Foundation's, the subscription is a `Timer` whose mirror shows the downstream,
  // the interval and the tolerance; once cancelled, they read nil.
  @Test func subscription_describesItselfAsTimer_andMirrorsDownstreamIntervalAndTolerance() throws {
    let timer = Timer.TimerPublisher(interval: 2, tolerance: 0.5, runLoop: .main, mode: .common)
    let recorder = RecordingSubscriber<Date, Never>(initialDemand: nil)
    timer.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Timer")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "Timer")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "interval", "tolerance"])
    let values = Array(children()).map(\.value)
    #expect(values[0] as? RecordingSubscriber<Date, Never> === recorder)
    #expect(values[1] as? TimeInterval == 2)
    #expect(values[2] as? TimeInterval == 0.5)
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "nil", "nil"])
  }

  @Test func publish_keepsItsConfiguration() {
    let timer = Timer.publish(every: 2, tolerance: 0.5, on: .main, in: .common)
    #expect(timer.interval == 2)
    #expect(timer.tolerance == nil)  // as Combine's `publish`, which drops it
    #expect(timer.runLoop === RunLoop.main)
    #expect(timer.mode == .common)
    #expect(timer.options == nil)
  }

  @Test func autoconnect_ticksWithIncreasingDates_onTheRunLoop() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let start = Date()
    let dates = Collected<Date>()
    let onLoop = Collected<Bool>()
    let cancellable = Timer.publish(every: 0.01, on: thread.runLoop, in: .default)
      .autoconnect()
      .sink {
        onLoop.append(thread.isCurrent)
        dates.append($0)
      }
    #expect(await dates.wait(for: 3))
    cancellable.cancel()
    let seen = dates.items
    #expect(seen[0] >= start.addingTimeInterval(0.01))
    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
    #expect(!onLoop.items.contains(false))
  }

  @Test func nothingTicks_beforeConnect_andNothingAfterTheConnectionIsCancelled() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let scheduler = thread.runLoop
    let timer = Timer.publish(every: 0.005, on: thread.runLoop, in: .default)
    let dates = Collected<Date>()
    let cancellable = timer.sink { dates.append($0) }
    let before = Collected<Int>()
    scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(30))) {
      before.append(dates.items.count)
    }
    #expect(await before.wait(for: 1))
    #expect(before.items == [0])
    let connection = AnyCancellable(timer.connect())
    #expect(await dates.wait(for: 2))
    let atCancel = Collected<Int>()
    scheduler.schedule {
      connection.cancel()
      atCancel.append(dates.items.count)
    }
    #expect(await atCancel.wait(for: 1))
    let after = Collected<Int>()
    scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(30))) {
      after.append(dates.items.count)
    }
    #expect(await after.wait(for: 1))
    #expect(after.items == atCancel.items)
    cancellable.cancel()
  }

  @Test func aSubscriberWithLimitedDemand_getsThatManyTicks() async {
    let thread = RunLoopThread()
    defer { thread.stop() }
    let scheduler = thread.runLoop
    let timer = Timer.TimerPublisher(interval: 0.005, runLoop: thread.runLoop, mode: .default)
    let limited = LimitedSubscriber(demand: 2)
    let unlimited = Collected<Date>()
    timer.subscribe(limited)
    let second = timer.sink { unlimited.append($0) }
    let connection = timer.connect()
    #expect(await unlimited.wait(for: 4))
    // Read on the loop's thread, after the fourth tick was delivered to both.
    let check = Collected<Int>()
    scheduler.schedule { check.append(limited.values.items.count) }
    #expect(await check.wait(for: 1))
    #expect(check.items == [2])
    connection.cancel()
    second.cancel()
  }
}

/// Requests `demand` ticks once and never more.
private final class LimitedSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Date
  typealias Failure = Never
  let values = Collected<Date>()
  private let demand: Int

  init(demand: Int) {
    self.demand = demand
  }

  func receive(subscription: any Subscription) {
    subscription.request(.max(demand))
  }

  func receive(_ input: Date) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}

#endif
