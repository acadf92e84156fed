import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MeasureIntervalTests {
  typealias Stride = VirtualTime.Stride

  let upstream = TestPublisher<String, TestError>()
  let scheduler = TestScheduler()

  @Test func values_replacedByTimeSinceThePrevious() {
    let recorder = RecordingSubscriber<Stride, TestError>()
    scheduler.advance(by: 100)
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    scheduler.advance(by: 3)
    upstream.send("a")
    scheduler.advance(by: 5)
    upstream.send("b")
    upstream.send("c")
    #expect(recorder.values == [3, 5, 0])
    #expect(recorder.subscriptionDescription == "MeasureInterval")
  }

  @Test func subscription_mirrorsNoChildren_andPlaysAsMeasureInterval() throws {
    // As Combine's: no mirror children, and the description as the playground display.
    let recorder = RecordingSubscriber<Stride, TestError>()
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(Mirror(reflecting: subscription).children.isEmpty)
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == "MeasureInterval")
  }

  @Test func completion_passesThrough() {
    let recorder = RecordingSubscriber<Stride, TestError>()
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    scheduler.advance(by: 2)
    upstream.send("a")
    upstream.send(completion: .failure(TestError()))
    #expect(
      recorder.events == [.subscription, .value(2), .completion(.failure(TestError()))]
    )
  }

  @Test func finishBeforeValues_passesThrough() {
    let recorder = RecordingSubscriber<Stride, TestError>()
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func demand_passesThrough() {
    let recorder = RecordingSubscriber<Stride, TestError>(initialDemand: nil)
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    upstream.send("a")
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
    upstream.send("b")
    upstream.send("c")
    #expect(recorder.values.count == 1)
  }

  @Test func demandFromReceive_returnedUpstream() {
    let recorder = RecordingSubscriber<Stride, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    upstream.send("a")
    upstream.send("b")
    #expect(recorder.values.count == 2)
    #expect(upstream.outstandingDemand == .max(1))
  }

  @Test func cancel_cancelsUpstreamAndStopsDelivery() {
    let recorder = RecordingSubscriber<Stride, TestError>()
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    recorder.cancel()
    upstream.send("a")
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Stride, TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send("a")
    upstream.send("b")
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(0)])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Stride, TestError>()
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Stride, TestError>()
    do {
      upstream.measureInterval(using: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Stride, TestError>()
    do {
      upstream.measureInterval(using: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(completion: .finished)
    }
    #expect(inner == nil)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<VirtualTime.Stride, Never>(initialDemand: nil)
      PassthroughSubject<Int, Never>().measureInterval(using: TestScheduler()).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func conforms() {
    let scheduler = scheduler
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .measureInterval(using: scheduler)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError())
          .measureInterval(using: scheduler)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  /// `options` is accepted for Combine compatibility and unused: nothing is scheduled.
  @Test func options_nothingScheduled() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<VirtualTime.Stride, TestError>()
    source.measureInterval(using: spy, options: SpyOptions(tag: 7)).subscribe(recorder)
    spy.base.advance(by: 4)
    source.send(1)
    #expect(recorder.values == [4])
    #expect(spy.calls.isEmpty)
  }

  // The differential oracle (issue 15): `measureInterval u R0.1 v0.4`. As Combine, the demand
  // the subscriber returns from `receive(_:)` is requested from the upstream, and
  // `receive(_:)` returns `.none` to it.
  @Test func demandFromReceive_requestedUpstream() {
    let recorder = RecordingSubscriber<Stride, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.measureInterval(using: scheduler).subscribe(recorder)
    upstream.send("a")
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1))])
    #expect(recorder.values.count == 1)
  }
}
