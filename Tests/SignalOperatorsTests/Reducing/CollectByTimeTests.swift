import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CollectByTimeTests {
  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func byTime_emitsAGroupEveryInterval() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    scheduler.advance(by: 9)
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: 1)
    #expect(recorder.values == [[1, 2]])
    upstream.send(3)
    scheduler.advance(by: 10)
    #expect(recorder.values == [[1, 2], [3]])
    #expect(recorder.subscriptionDescription == "CollectByTime")
  }

  @Test func byTime_emptyIntervalEmitsNothing() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    scheduler.advance(by: 30)
    #expect(recorder.events == [.subscription])
  }

  // As Combine's (CombineX's compatibility spec "should always request 1 when strategy is by
  // time", run against Combine): one value per downstream request, and one more returned from
  // each value.
  @Test func byTime_asksForOneValueAtATime() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(2))
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(1))])
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .max(1))
    recorder.request(.max(3))
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1))])
    scheduler.advance(by: 10)
    #expect(recorder.values == [[1, 2]])
  }

  @Test func byTimeOrCount_emitsWhenFull() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTimeOrCount(scheduler, 10, 2)).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values.isEmpty)
    scheduler.advance()
    #expect(recorder.values == [[1, 2]])
    scheduler.advance(by: 10)
    #expect(recorder.values == [[1, 2], [3]])
  }

  @Test func byTimeOrCount_requestsCountPerGroup() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    upstream.collect(.byTimeOrCount(scheduler, 10, 3)).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(2))
    #expect(upstream.requests == [.demand(.max(6))])
  }

  @Test func byTimeOrCount_demandFromReceiveRequestsMore() {
    let recorder = RecordingSubscriber<[Int], TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.collect(.byTimeOrCount(scheduler, 10, 2)).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    scheduler.advance()
    upstream.send(3)
    upstream.send(4)
    scheduler.advance()
    #expect(recorder.values == [[1, 2], [3, 4]])
    #expect(upstream.outstandingDemand == .max(2))
    #expect(upstream.violations.isEmpty)
  }

  // `collect(.byTimeOrCount) 1 R0.1 v0.1 t2 v0.2 t2 v0.3 t2`, as Combine's (CombineX's
  // compatibility spec "should ignore sync backpressure from scheduling sending when strategy
  // is byTimeOrCount"): the demand an interval's array returns only adds to the subscriber's
  // demand; nothing more is asked upstream, so with `count` 2 the third value can't come.
  @Test func byTimeOrCount_demandReturnedAtATick_isNotRequestedUpstream() {
    let recorder = RecordingSubscriber<[Int], TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.collect(.byTimeOrCount(scheduler, 2, 2)).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 2)
    upstream.send(2)
    scheduler.advance(by: 2)
    #expect(recorder.values == [[1], [2]])
    #expect(upstream.requests == [.demand(.max(2))])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.violations.isEmpty)
  }

  @Test func demandNone_keepsCollectingUntilRequested() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    scheduler.advance(by: 10)
    #expect(upstream.requests.isEmpty)  // as Combine's: nothing asked before a request
    recorder.request(.max(1))
    upstream.send(1)
    scheduler.advance(by: 10)
    #expect(recorder.values == [[1]])
    // No demand left: the intervals pass and the values keep collecting.
    upstream.send(2)
    scheduler.advance(by: 10)
    upstream.send(3)
    scheduler.advance(by: 10)
    #expect(recorder.values == [[1]])
    recorder.request(.max(1))
    scheduler.advance(by: 10)
    #expect(recorder.values == [[1], [2, 3]])
    #expect(upstream.violations.isEmpty)
  }

  @Test func demandMaxOne_oneGroup() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1))
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 10)
    upstream.send(2)
    scheduler.advance(by: 10)
    #expect(recorder.values == [[1]])
    #expect(recorder.violations.isEmpty)
  }

  @Test func finish_emitsThePartialGroupThenFinishes() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value([1]), .completion(.finished)])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func finishWithoutValues_justFinishes() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    upstream.send(completion: .finished)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func finishWithoutDemand_lastGroupWaitsForIt() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1))
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: 10)
    upstream.send(2)
    upstream.send(completion: .finished)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value([1])])
    recorder.request(.max(1))
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value([1]), .value([2]), .completion(.finished)])
  }

  @Test func failure_dropsCollectedValues() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func cancel_stopsTimerAndUpstream() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    upstream.send(1)
    recorder.cancel()
    #expect(scheduler.pendingActionCount == 0)
    scheduler.advance(by: 10)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    scheduler.advance()
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func cancelFromReceive_dropsTheRest() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.collect(.byTimeOrCount(scheduler, 10, 1)).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value([1])])
  }

  @Test func requestFromReceive_deliversTheNextGroup() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.collect(.byTimeOrCount(scheduler, 10, 1)).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    scheduler.advance()
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [[1], [2]])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<[Int], TestError>()
    do {
      upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<[Int], TestError>()
    do {
      upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(1)
      upstream.send(completion: .finished)
    }
    scheduler.advance()
    #expect(recorder.completion == .finished)
    #expect(inner == nil)
  }

  @Test func concurrentSends_nothingLostOrDuplicated() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<[Int], Never>()
    subject.collect(.byTimeOrCount(scheduler, 10, 7)).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<500 { subject.send(side * 500 + value) }
    }
    scheduler.advance(by: 10)
    #expect(recorder.values.flatMap { $0 }.sorted() == Array(0..<2_000))
    #expect(recorder.values.allSatisfy { $0.count <= 7 })
  }

  @Test func zeroCount_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = PassthroughSubject<Int, Never>().collect(.byTimeOrCount(TestScheduler(), 1, 0))
    }
    expectTrap(trap1, "CollectByTime: count must be greater than zero, got 0")
  }

  @Test func requestFromReceive_manyGroupsWithoutRecursion() {
    let recorder = RecordingSubscriber<[Int], Never>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    (0..<20_000).publisher.collect(.byTimeOrCount(ImmediateScheduler.shared, 1, 2))
      .subscribe(recorder)
    #expect(recorder.values.count == 10_000)
    #expect(recorder.completion == .finished)
  }

  @Test func requestNone_byTimeOrCount_isPassedUpstream_asCombineDoes() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: nil)
    upstream.collect(.byTimeOrCount(TestScheduler(), 1, 2)).subscribe(recorder)
    recorder.subscription?.request(.none)
    recorder.subscription?.request(.max(1))
    #expect(upstream.requests == [.demand(.none), .demand(.max(2))])
  }

  @Test func byTimeOrCountOfOne_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .collect(.byTimeOrCount(ImmediateScheduler.shared, 1, 1))
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError())
          .collect(.byTimeOrCount(ImmediateScheduler.shared, 1, 1))
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  /// No timer exists while the subscriber is in `receive(subscription:)`, even after it
  /// requests there: nothing can tick on another thread before the subscriber has its
  /// subscription. The timer used to be scheduled before `receive(subscription:)` was sent.
  @Test func duringReceiveSubscription_noTimerIsScheduled() {
    let scheduler = scheduler
    let subscriber = TimingOrderProbe<[Int], TestError> { scheduler.pendingActionCount }
    upstream.collect(.byTime(scheduler, 10), options: nil).subscribe(subscriber)
    #expect(subscriber.observed.withLock { $0 } == [0])
    #expect(scheduler.pendingActionCount == 1)
  }

  /// `options` goes with the timer and the deliveries.
  @Test func options_forwardedToTheScheduler() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<[Int], TestError>()
    source.collect(.byTime(spy, 5), options: SpyOptions(tag: 4)).subscribe(recorder)
    source.send(1)
    spy.base.advance(by: 5)
    source.send(completion: .finished)
    spy.base.advance()
    #expect(recorder.events == [.subscription, .value([1]), .completion(.finished)])
    #expect(spy.calls.first?.kind == .repeating)
    #expect(spy.calls.contains { $0.kind == .now })
    #expect(spy.calls.allSatisfy { $0.options == SpyOptions(tag: 4) })
  }

  // The differential oracle (issue 15): the subscription's description, and a mirror with the
  // downstream, the upstream subscription, the group being collected and the demand not yet met.
  @Test func mirror_downstreamUpstreamBufferAndDemand() throws {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(3))
    upstream.collect(.byTimeOrCount(scheduler, 10, 5)).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(7)
    upstream.send(8)
    #expect(String(describing: subscription) == "CollectByTime")
    let mirror = Mirror(reflecting: subscription)
    #expect(
      mirror.children.map(\.label)
        == ["downstream", "upstreamSubscription", "buffer", "downstreamDemand"]
    )
    let values = mirror.children.map { String(describing: $0.value) }
    #expect(values[0] != "nil")
    #expect(values[1] != "nil")
    #expect(values.dropFirst(2) == ["[7, 8]", "max(3)"])
  }

  // I12: once ended, the mirror shows what the subscription let go of as nil.
  @Test func mirror_afterTheEnd_showsNil() throws {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(.byTime(scheduler, 10)).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(1)
    upstream.send(completion: .finished)
    let finishing = Mirror(reflecting: subscription).children.map {
      String(describing: $0.value)
    }
    #expect(finishing[1] == "nil")
    #expect(finishing[2] == "[]")
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value([1]), .completion(.finished)])
    let ended = Mirror(reflecting: subscription).children.map { String(describing: $0.value) }
    #expect(ended == ["nil", "nil", "[]", "max(0)"])
  }
}
