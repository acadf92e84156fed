import Foundation
import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ThrottlePauseTests {
  let upstream = TestPublisher<Int, SwiftyTestError>()
  let scheduler = TestScheduler()

  @Test func firstPasses_restWithinPauseDropped_noTrailingValue() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.throttle(pause: .seconds(1), scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: .milliseconds(500))
    upstream.send(2)
    scheduler.advance(by: .milliseconds(499))
    upstream.send(3)
    scheduler.advance(by: .seconds(5))
    #expect(recorder.values == [1])
    upstream.send(4)
    #expect(recorder.values == [1, 4])
  }

  @Test func pauseMeasuredFromLastPassedValue() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.throttle(pause: .seconds(1), scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: .milliseconds(600))
    upstream.send(2)
    scheduler.advance(by: .milliseconds(400))
    upstream.send(3)
    #expect(recorder.values == [1, 3])
  }

  @Test func measurementOverload_sameAsDuration() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.throttle(
      pause: Measurement(value: 2, unit: UnitDuration.seconds),
      scheduler: scheduler
    )
    .subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: .milliseconds(1_999))
    upstream.send(2)
    scheduler.advance(by: .milliseconds(1))
    upstream.send(3)
    #expect(recorder.values == [1, 3])
  }

  @Test func droppedValue_asksUpstreamForOneMore() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>(initialDemand: .max(1))
    upstream.throttle(pause: .seconds(1), scheduler: scheduler).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(1))])
    upstream.send(1)
    recorder.request(.max(1))
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.outstandingDemand == .max(1))
    scheduler.advance(by: .seconds(1))
    upstream.send(3)
    #expect(recorder.values == [1, 3])
    #expect(upstream.violations.isEmpty)
  }

  @Test func demandNone_nothingDeliveredUntilRequested() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>(initialDemand: nil)
    upstream.throttle(pause: .seconds(1), scheduler: scheduler).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    upstream.send(1)
    #expect(recorder.values == [1])
  }

  @Test func failurePassesThrough() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.throttle(pause: .seconds(1), scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(SwiftyTestError()))
    #expect(
      recorder.events == [.subscription, .value(1), .completion(.failure(SwiftyTestError()))]
    )
  }

  @Test func eachSubscriptionHasItsOwnClock() {
    let first = RecordingSubscriber<Int, SwiftyTestError>()
    let second = RecordingSubscriber<Int, SwiftyTestError>()
    let throttled = upstream.throttle(pause: .seconds(1), scheduler: scheduler)
    throttled.subscribe(first)
    upstream.send(1)
    throttled.subscribe(second)
    upstream.send(2)
    #expect(first.values == [1])
    #expect(second.values == [2])
  }

  @Test func cancel_stopsValuesAndReleasesSubscription() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.throttle(pause: .seconds(1), scheduler: scheduler).subscribe(recorder)
    weak let subscription = recorder.subscription.map { $0 as AnyObject }
    #expect(subscription != nil)
    let plainFilter = RecordingSubscriber<Int, SwiftyTestError>()
    TestPublisher<Int, SwiftyTestError>().filter { _ in true }.subscribe(plainFilter)
    #expect(recorder.subscriptionDescription == plainFilter.subscriptionDescription)
    recorder.cancel()
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    #expect(upstream.requests.last == .cancel)
    #expect(subscription == nil)
  }

  @Test func negativeOrZeroPause_passesEveryValue() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.throttle(pause: .seconds(-1), scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1, 2])
  }

  @Test func conformance() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Int, SwiftyTestError>(output: [1, 2, 3], completion: .finished)
          .throttle(pause: .zero, scheduler: ImmediateScheduler.shared)
      },
      makeFailingPublisher: {
        Record<Int, SwiftyTestError>(output: [1], completion: .failure(SwiftyTestError()))
          .throttle(pause: .zero, scheduler: ImmediateScheduler.shared)
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}
