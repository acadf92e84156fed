import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct OutputTests {

  // Differential oracle (issue 15): `output(at:1) - late F0 S0`. As Combine: a completion sent before
  // the subscription is ignored, and the subscription that follows is used as usual.
  @Test func completionBeforeSubscription_isIgnored() {
    let probe = SubscriptionProbe()
    let recorder = RecordingSubscriber<Int, Never>()
    LateSubscriptionPublisher<Int>(value: nil, subscription: probe).output(at: 1).subscribe(
      recorder
    )
    #expect(recorder.events == [.subscription])
    #expect(probe.requested == [.unlimited])
    #expect(!probe.cancelled)
  }

  let upstream = TestPublisher<Int, TestError>()

  @Test func outputIn_publishesValuesInRangeThenFinishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    (0..<10).publisher.output(in: 2..<5).subscribe(recorder)
    #expect(
      recorder.events == [.subscription, .value(2), .value(3), .value(4), .completion(.finished)]
    )
  }

  @Test func outputAt_publishesOneValueThenCancelsAndFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.output(at: 1).subscribe(recorder)
    upstream.send(10)
    upstream.send(11)
    #expect(recorder.events == [.subscription, .value(11), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    upstream.send(12)
    #expect(recorder.values == [11])
  }

  @Test func prefix_finishesRightAfterTheLastValue() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(2).subscribe(recorder)
    upstream.send(1)
    #expect(recorder.completion == nil)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func lastValueInRange_returnsTheSubscribersDemand() {
    // As Combine's (OpenCombine's `OutputTests.testBasicBehavior`: `send(7)` returns `.max(42)`).
    let log = CallLog()
    let upstream = LoggedPublisher<Int, Never>("up", log: log)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(42))
    upstream.output(in: 1..<2).subscribe(recorder)
    #expect(upstream.send(1) == .max(1))  // dropped: one more
    #expect(upstream.send(2) == .max(42))  // the range's last value
    #expect(recorder.events == [.subscription, .value(2), .completion(.finished)])
    #expect(log.calls == ["up.request 1", "up.cancel"])
  }

  @Test func prefixZero_finishesAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(0).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func emptyRangeAfterStart_finishesAtOnce() {
    let recorder = RecordingSubscriber<Int, Never>()
    (0..<10).publisher.output(in: 5..<5).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func rangeExpressions_translateToCountableRanges() {
    let empty = Empty<Int, Never>()
    #expect(empty.prefix(7).range == 0..<7)
    #expect(empty.output(at: 3).range == 3..<4)
    #expect(empty.output(in: ...8).range == 0..<9)
    #expect(empty.output(in: ..<8).range == 0..<8)
    #expect(empty.output(in: 8...).range == 8..<Int.max)
    #expect(empty.output(in: 4...5).range == 4..<6)
  }

  @Test func negativePrefix_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Empty<Int, Never>().prefix(-1)
    }
    expectTrap(trap1, "prefix(_:): maxLength must not be negative, got -1")
  }

  @Test func negativeIndex_traps() async {
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Empty<Int, Never>().output(at: -1)
    }
    expectTrap(trap2, "output(at:): index must not be negative, got -1")
  }

  @Test func requestNone_traps() async {
    let trap3 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      PassthroughSubject<Int, Never>().prefix(2).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap3, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func demandNone_requestsNothingUntilAsked() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.output(in: 1..<3).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func droppedValues_topTheDemandUp() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.output(in: 2..<4).subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(2)
    #expect(recorder.values == [2])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.violations.isEmpty)
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandToppedUpFromReceive_deliversOneAtATime() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.prefix(3).subscribe(recorder)
    for value in 1...3 { upstream.send(value) }
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)]
    )
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
    #expect(upstream.violations.isEmpty)
  }

  @Test func requestFromReceive_isPassedUpstream() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(2))
      return .none
    }
    upstream.prefix(5).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(2))])
    #expect(upstream.outstandingDemand == .max(2))
  }

  @Test func upstreamFinishesBeforeRangeEnds_finishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.output(in: 1..<5).subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func upstreamFailsBeforeValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(3).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func upstreamFailsAfterValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(3).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
  }

  @Test func cancelBeforeValues_cancelsUpstreamAndDeliversNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(3).subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(1).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(1)
    subscription?.cancel()
    subscription?.request(.max(1))
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.prefix(3).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelFromReceiveOfLastValue_sendsNoCompletion() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.prefix(1).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.prefix(3).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(3).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(inner == nil)
  }

  @Test func description_isOutput() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(3).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Output")
  }

  @Test func concurrentCancel_deliversAnUnbrokenPrefix() {
    for _ in 0..<8 {
      let source = TestPublisher<Int, Never>()
      let sent = CallCounter()
      let spunOut = LockedState(false)
      let recorder = RecordingSubscriber<Int, Never>()
      source.prefix(10_000).subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          for value in 0..<600 {
            source.send(value)
            sent.increment()
          }
        } else {
          if !spinUntil({ sent.value >= 100 }) { spunOut.withLock { $0 = true } }
          recorder.cancel()
        }
      }
      #expect(!spunOut.withLock { $0 }, "the sender never reached 100 values")
      let values = recorder.values
      #expect(values.count >= 100)
      #expect(values == Array(0..<values.count))
      #expect(recorder.completion == nil)
      #expect(source.requests == [.demand(.unlimited), .cancel])
    }
  }

  @Test func output_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<6).output(in: 1..<4)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError())).prefix(5)
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<2_000_000).output(
          in: 3..<1_500_000
        )
        .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
