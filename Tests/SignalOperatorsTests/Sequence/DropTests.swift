import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DropTests {

  let upstream = TestPublisher<Int, TestError>()

  @Test func dropFirst_dropsTheFirstValues() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 3, 4].publisher.dropFirst(2).subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(3), .value(4), .completion(.finished)])
  }

  @Test func dropFirstDefault_dropsOneValue() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 3].publisher.dropFirst().subscribe(recorder)
    #expect(recorder.values == [2, 3])
  }

  @Test func requestsAfterTheSubscription_arePassedOnAsTheyAre() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.dropFirst(2).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2))])
    recorder.request(.max(1))
    recorder.request(.max(2))
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1)), .demand(.max(2))])
  }

  // Differential oracle (issue 15), K036: `dropFirst(2) - v0.3`. As Combine: the dropped values
  // are requested as soon as the upstream subscribes, before any downstream demand.
  @Test func noDemand_requestsTheDroppedCountAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: Subscribers.Demand.none)
    upstream.dropFirst(2).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2))])
    upstream.send(3)
    upstream.send(4)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    upstream.send(5)
    #expect(recorder.values == [5])
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1))])
  }

  // Differential oracle (issue 15), K036: `dropFirst(2) u`. The downstream gets its
  // subscription before the upstream is subscribed.
  @Test func downstreamSubscribedBeforeUpstream() {
    let source = PassthroughSubject<Int, TestError>()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: Subscribers.Demand.none)
    var downstreamEventsWhenUpstreamSubscribed: [RecordingSubscriber<Int, TestError>.Event]?
    let tapped = source.handleEvents(receiveSubscription: { _ in
      downstreamEventsWhenUpstreamSubscribed = recorder.events
    })
    tapped.dropFirst(2).subscribe(recorder)
    #expect(downstreamEventsWhenUpstreamSubscribed == [.subscription])
  }

  @Test func unlimitedDemand_staysUnlimited() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(2).subscribe(recorder)
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func dropFirstZero_requestsTheDemandAsIs() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.dropFirst(0).subscribe(recorder)
    upstream.send(1)
    #expect(upstream.requests == [.demand(.max(1))])
    #expect(recorder.values == [1])
  }

  @Test func demandMaxOne_deliversOneValueAfterTheDropped() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.dropFirst(2).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [3])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.violations.isEmpty)
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandToppedUpFromReceive_deliversEveryValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.dropFirst(2).subscribe(recorder)
    for value in 1...5 { upstream.send(value) }
    #expect(recorder.values == [3, 4, 5])
    #expect(upstream.violations.isEmpty)
  }

  @Test func requestFromReceive_isPassedUpstreamAsIs() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(2))
      return .none
    }
    upstream.dropFirst(1).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [2])
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(2))])
  }

  @Test func upstreamFinishesWhileDropping_finishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(3).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func upstreamFailsBeforeValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(1).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func upstreamFailsAfterValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(1).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(2), .completion(.failure(TestError()))])
  }

  @Test func cancelBeforeValues_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(1).subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(1).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    subscription?.cancel()
    subscription?.request(.max(1))
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.dropFirst(1).subscribe(recorder)
    holder.subscription = recorder.subscription
    for value in 1...4 { upstream.send(value) }
    #expect(recorder.values == [2])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.dropFirst(1).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(1).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    upstream.send(completion: .failure(TestError()))
    #expect(inner == nil)
  }

  @Test func negativeCount_trapsAtSubscription_asCombineDoes() async {
    let publisher = Empty<Int, Never>().dropFirst(-1)  // making it doesn't trap
    #expect(publisher.count == -1)
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      Empty<Int, Never>().dropFirst(-1).subscribe(RecordingSubscriber<Int, Never>())
    }
    expectTrap(trap1, "Drop: count must not be negative, got -1")
  }

  @Test func description_isDrop() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.dropFirst(1).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Drop")
  }

  @Test func drop_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0, 1, 2, 3, 4]).dropFirst(2)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError())).dropFirst()
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<1_000_010).dropFirst(10)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
