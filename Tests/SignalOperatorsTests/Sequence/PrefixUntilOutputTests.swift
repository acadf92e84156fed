import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PrefixUntilOutputTests {

  let upstream = TestPublisher<Int, TestError>()
  let trigger = TestPublisher<String, Never>()

  // Differential oracle (issue 15), misbehaving upstream: `prefix(untilOutputFrom:) - e0.1 V0.2`.
  // As Combine: a value the other publisher sends after its completion doesn't stop the flow.
  @Test func otherValueAfterItsCompletion_ignored() {
    let other = LoggedPublisher<String, Never>("other", log: CallLog())
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: other).subscribe(recorder)
    other.send(completion: .finished)
    other.send("late")
    upstream.send(1)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  // Differential oracle (issue 15), misbehaving upstream: `prefix(untilOutputFrom:) - late1
  // E1.1`. As Combine: an upstream's completion before its subscription doesn't reach the
  // subscriber, which has no subscription either; the other publisher is cancelled.
  @Test func upstreamCompletionBeforeItsSubscription_notDelivered() {
    let recorder = RecordingSubscriber<Int, TestError>()
    CompletesWithoutSubscription<Int, TestError>(completion: .failure(TestError()))
      .prefix(untilOutputFrom: trigger)
      .subscribe(recorder)
    #expect(recorder.events.isEmpty)
    #expect(trigger.requests == [.demand(.max(1)), .cancel])
  }

  @Test func valuesUntilTrigger_passThenFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    trigger.send("stop")
    upstream.send(3)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func trigger_cancelsTheUpstream_andLetsGoOfTheTrigger() {
    // As Combine's (OpenCombine's `PrefixUntilOutputTests.testBasicBehavior`): the trigger was
    // asked for one value, and is not cancelled after it.
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    #expect(trigger.requests == [.demand(.max(1))])
    trigger.send("stop")
    #expect(trigger.requests == [.demand(.max(1))])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func triggerValueBeforeItsSubscription_isIgnored() {
    // As Combine's (OpenCombine's `testPrefixUntilOutputReceiveValueBeforeSubscription`).
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: EarlyEventPublisher<String>(value: "stop")).subscribe(recorder)
    upstream.send(1)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func synchronousTrigger_finishesAtOnceAndCancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: Just("stop")).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.cancel])
  }

  @Test func otherFinishesWithoutValue_isIgnored() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    trigger.send(completion: .finished)
    upstream.send(1)
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func otherFailsWithoutValue_isIgnored() {
    let other = TestPublisher<String, TestError>()
    let recorder = RecordingSubscriber<Int, Never>()
    let source = TestPublisher<Int, Never>()
    source.prefix(untilOutputFrom: other).subscribe(recorder)
    other.send(completion: .failure(TestError()))
    source.send(1)
    source.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func demandNone_requestsNothingUntilAsked() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(2))
    #expect(upstream.requests == [.demand(.max(2))])
  }

  @Test func demandMaxOne_isPassedOnAsIs() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.max(1))])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandToppedUpFromReceive_deliversEveryValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    for value in 1...3 { upstream.send(value) }
    #expect(recorder.values == [1, 2, 3])
    #expect(upstream.violations.isEmpty)
  }

  @Test func triggerFromReceive_finishesAfterTheValue() {
    let recorder = RecordingSubscriber<Int, TestError> { [trigger] _ in
      trigger.send("stop")
      return .max(1)
    }
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func upstreamFinishes_finishesAndCancelsOther() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    trigger.send("stop")
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(trigger.requests == [.demand(.max(1)), .cancel])
  }

  @Test func upstreamFailsBeforeValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func cancel_cancelsBothAndDeliversNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    trigger.send("stop")
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
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    trigger.send("stop")
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    let subscription = recorder.subscription
    trigger.send("stop")
    subscription?.cancel()
    subscription?.request(.max(1))
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterTrigger() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    trigger.send("stop")
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterUpstreamCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    upstream.send(completion: .failure(TestError()))
    #expect(inner == nil)
  }

  @Test func description_isPrefixUntilOutput() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "PrefixUntilOutput")
  }

  @Test func concurrentTrigger_nothingAfterItNothingLostOrDuplicated() {
    for _ in 0..<8 {
      let source = TestPublisher<Int, Never>()
      let stop = TestPublisher<Void, Never>()
      let sent = CallCounter()
      let spunOut = LockedState(false)
      let recorder = RecordingSubscriber<Int, Never>()
      source.prefix(untilOutputFrom: stop).subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          for value in 0..<600 {
            source.send(value)
            sent.increment()
          }
        } else {
          if !spinUntil({ sent.value >= 100 }) { spunOut.withLock { $0 = true } }
          stop.send(())
        }
      }
      #expect(!spunOut.withLock { $0 }, "the sender never reached 100 values")
      let seen = recorder.values.count
      source.send(600)
      #expect(seen >= 100)
      #expect(recorder.values == Array(0..<seen))
      #expect(recorder.completion == .finished)
      guard case .completion? = recorder.events.last else {
        Issue.record("the completion is not the last event: \(recorder.events.suffix(3))")
        continue
      }
      #expect(recorder.violations.isEmpty)
      #expect(source.requests == [.demand(.unlimited), .cancel])
    }
  }

  @Test func prefixUntilOutput_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .prefix(untilOutputFrom: Empty<Void, Never>(completeImmediately: false))
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError()))
          .prefix(untilOutputFrom: Empty<Void, Never>(completeImmediately: false))
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<1_000_000)
          .prefix(untilOutputFrom: Empty<Void, Never>())
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
