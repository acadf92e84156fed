import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DropUntilOutputTests {

  let upstream = TestPublisher<Int, TestError>()
  let trigger = TestPublisher<String, TestError>()

  @Test func valuesBeforeTrigger_areDropped() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(1)
    trigger.send("go")
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.events == [.subscription, .value(2), .value(3)])
  }

  @Test func other_isAskedForOneValue_andLetGoOfAfterIt_notCancelled() {
    // As Combine's (OpenCombine's `DropUntilOutputTests.testDemand`).
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    #expect(trigger.requests == [.demand(.max(1))])
    trigger.send("go")
    #expect(trigger.requests == [.demand(.max(1))])
  }

  @Test func other_keptByItsPublisher_doesNotKeepTheEndedSubscription() {
    // The other publisher keeps its subscriber (nothing cancelled it); once the subscription
    // ended, that subscriber no longer reaches it.
    let recorder = RecordingSubscriber<Int, TestError>()
    weak var subscription: AnyObject?
    do {
      upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      trigger.send("go")
      recorder.cancel()
    }
    #expect(subscription == nil)
    #expect(trigger.subscriptionCount == 1)
  }

  @Test func demandRequestedOnSubscription_reachesTheUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2))])
  }

  @Test func demandBeforeTheUpstreamsSubscription_isRequestedWhenItArrives() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    let probe = SubscriptionProbe()
    let held = HeldSubscriptionPublisher()
    held.drop(untilOutputFrom: PassthroughSubject<Void, Never>()).subscribe(recorder)
    recorder.request(.max(1))
    held.send(subscription: probe)
    #expect(probe.requested == [.max(3)])
  }

  @Test func demandNone_requestsNothingUntilAsked() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func droppedValues_useUpTheSubscribersDemand() {
    // As Combine's (OpenCombine's `DropUntilOutputTests.testDemand`): a dropped value returns
    // no demand, so it is one of those the subscriber asked for.
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(3))
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .max(1))
    trigger.send("go")
    upstream.send(3)
    #expect(recorder.values == [3])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.violations.isEmpty)
  }

  @Test func droppedValueBeyondDemand_traps_asCombineDoes() async {
    // OpenCombine's `DropUntilOutputTests.testCrashesWhenReceivesInputAfterCancel` and
    // `testDropUntilOutputReceiveValueBeforeSubscription`.
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = LoggedPublisher<Int, Never>("up", log: CallLog())
      upstream.drop(untilOutputFrom: PassthroughSubject<Void, Never>())
        .subscribe(RecordingSubscriber<Int, Never>(initialDemand: nil))
      upstream.send(1)
    }
    expectTrap(trap, "DropUntilOutput: the upstream sent a value beyond the subscriber's demand")
  }

  @Test func demandToppedUpFromReceive_deliversEveryValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    trigger.send("go")
    for value in 1...3 { upstream.send(value) }
    #expect(recorder.values == [1, 2, 3])
    #expect(upstream.violations.isEmpty)
  }

  @Test func synchronousTrigger_passesEverything() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let other = Publishers.Sequence<[Int], TestError>(sequence: [0])
    Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).drop(untilOutputFrom: other)
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func otherFinishesWithoutValue_cancelsUpstreamAndFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(1)
    trigger.send(completion: .finished)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func otherFailsWithoutValue_cancelsUpstreamAndFails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    trigger.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func otherFailsAtSubscription_upstreamIsCancelledOnArrival() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: Fail<String, TestError>(error: TestError())).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(upstream.requests == [.cancel])
  }

  @Test func otherCompletesAfterItsValue_isIgnored() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let other = PassthroughSubject<String, TestError>()
    upstream.drop(untilOutputFrom: other).subscribe(recorder)
    other.send("go")
    other.send(completion: .failure(TestError()))
    upstream.send(1)
    #expect(recorder.events == [.subscription, .value(1)])
  }

  // As Combine's (OpenCombine's `DropUntilOutput`): the other publisher is let go of without a
  // cancel, and its later completion is not a second one.
  @Test func upstreamFinishes_finishesAndLetsGoOfOther() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(trigger.requests == [.demand(.max(1))])
    trigger.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func upstreamFailsAfterValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    trigger.send("go")
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
  }

  @Test func cancel_cancelsBothAndDeliversNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    recorder.cancel()
    trigger.send("go")
    upstream.send(1)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(trigger.requests == [.demand(.max(1)), .cancel])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    holder.subscription = recorder.subscription
    trigger.send("go")
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    subscription?.cancel()
    subscription?.request(.max(1))
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    trigger.send("go")
    upstream.send(completion: .finished)
    #expect(inner == nil)
  }

  @Test func description_isDropUntilOutput() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DropUntilOutput")
  }

  @Test func concurrentTrigger_passesAnUnbrokenTailOfValues() {
    for _ in 0..<8 {
      let source = TestPublisher<Int, Never>()
      let start = TestPublisher<Void, Never>()
      let sent = CallCounter()
      let spunOut = LockedState(false)
      let recorder = RecordingSubscriber<Int, Never>()
      source.drop(untilOutputFrom: start).subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          for value in 0..<600 {
            source.send(value)
            sent.increment()
          }
        } else {
          if !spinUntil({ sent.value >= 100 }) { spunOut.withLock { $0 = true } }
          start.send(())
        }
      }
      #expect(!spunOut.withLock { $0 }, "the sender never reached 100 values")
      let values = recorder.values
      let first = values.first ?? 600
      #expect(first >= 100)
      #expect(values == Array(first..<600))
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func dropUntilOutput_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .drop(untilOutputFrom: Publishers.Sequence<[Int], TestError>(sequence: [0]))
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError()))
          .drop(untilOutputFrom: Publishers.Sequence<[Int], TestError>(sequence: [0]))
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<1_000_000)
          .drop(untilOutputFrom: Publishers.Sequence<[Int], TestError>(sequence: [0]))
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}

/// A publisher that keeps its subscriber and hands it a subscription only when told to.
// Sendable: used on one thread only.
private final class HeldSubscriptionPublisher: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  private var deliver: ((any Subscription) -> Void)?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    deliver = { subscriber.receive(subscription: $0) }
  }

  func send(subscription: any Subscription) { deliver?(subscription) }
}
