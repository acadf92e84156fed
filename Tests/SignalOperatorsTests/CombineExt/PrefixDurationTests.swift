import StreamCore
import StreamTesting
import Testing

@testable import SignalOperators
@testable import StreamCombineExt

@Suite(.timeLimit(.minutes(5))) struct PrefixDurationTests {
  let scheduler = TestScheduler()
  let upstream = TestPublisher<Int, TestError>()

  // Issue 15: every subscription has a description and a mirror; the timer's subscription is
  // the one `prefix(untilOutputFrom:)` holds.
  @Test func timerSubscription_describesItself_andMirrorsDownstreamAndState() throws {
    let timer = DurationElapsed(duration: 5, tolerance: 0, scheduler: scheduler, options: nil)
    let recorder = RecordingSubscriber<Void, Never>(initialDemand: nil)
    timer.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Timer")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "Timer")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "state"])
    #expect(children().first?.value as? RecordingSubscriber<Void, Never> === recorder)
    #expect(Array(children())[1].value as? String == "waiting")
    scheduler.advance(by: 5)
    #expect(Array(children())[1].value as? String == "fired")
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "terminal"])
  }

  @Test func valuesWithinTheDuration_thenFinishAndUpstreamCancelled() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(duration: 10, on: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 5)
    upstream.send(2)
    scheduler.advance(by: 4)
    upstream.send(3)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == nil)
    scheduler.advance(by: 1)
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)]
    )
    #expect(upstream.requests.last == .cancel)
    upstream.send(4)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.violations.isEmpty)
  }

  @Test func theDurationCountsFromTheSubscription() {
    scheduler.advance(by: 100)
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(duration: 10, tolerance: 1, on: scheduler, options: nil).subscribe(recorder)
    scheduler.advance(by: 9)
    #expect(recorder.completion == nil)
    scheduler.advance(by: 1)
    #expect(recorder.completion == .finished)
  }

  @Test func upstreamEndsFirst_completionPassesAndTheTimerIsCancelled() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(duration: 10, on: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
    scheduler.advance(by: 20)
    #expect(recorder.events.count == 3)
    #expect(recorder.violations.isEmpty)
  }

  @Test func limitedDemand_isPassedToTheUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    upstream.prefix(duration: 10, on: scheduler).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2))])
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .none)
    scheduler.advance(by: 10)
    // The finish needs no demand.
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func cancel_cancelsUpstreamAndTimer_andReleasesTheSubscriber() {
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      upstream.prefix(duration: 10, on: scheduler).subscribe(recorder)
      upstream.send(1)
      recorder.cancel()
      scheduler.advance(by: 10)
      #expect(recorder.events == [.subscription, .value(1)])
    }
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(weakRecorder == nil)
    // The timer was cancelled, not left to fire.
    #expect(scheduler.run())
  }

  @Test func prefixDuration_conforms() {
    // The scheduler is never advanced: within the duration, the upstream passes as it is.
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [1, 2, 3].publisher.setFailureType(to: TestError.self)
          .prefix(duration: 10, on: TestScheduler())
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).prepend(1)
          .prefix(duration: 10, on: TestScheduler())
      },
      makeLongPublisher: {
        (0..<100_000).publisher.setFailureType(to: TestError.self)
          .prefix(duration: 10, on: TestScheduler())
      }
    )
    .run()
    .expectAllPassed()
  }
}
