import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ConcatenateTests {
  @Test func suffix_isKeptByTheSubscription_untilItEnds() {
    // As Combine's (OpenCombine's `ConcatenateTests.testReleasesSuffixOnCancellation`): the
    // suffix lives as long as the subscription, even when nothing else keeps the prefix.
    weak var suffix: AnyObject?
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    do {
      let kept = KeptPublisher()
      suffix = kept
      LoggedPublisher<Int, Never>("prefix", log: CallLog()).append(kept).subscribe(recorder)
    }
    #expect(suffix != nil)
    recorder.cancel()
    #expect(suffix == nil)
  }

  @Test func suffixReleasedOnCancel_mayCallBackFromItsDeinit() {
    // OpenCombine's `ConcatenateTests.testReceiveCompletionWhileCancelling`: the suffix is
    // released after the lock, so a completion it sends from its deinit doesn't deadlock.
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    do {
      let prefix = LoggedPublisher<Int, Never>("prefix", log: CallLog())
      prefix.append(FinishingOnRelease()).subscribe(recorder)
      prefix.send(completion: .finished)
    }
    recorder.cancel()  // the subscription holds the last reference to the suffix
    #expect(recorder.events == [.subscription])
  }

  // Differential oracle (issue 15): `append(values) - late F0 S0`. As Combine: a completion sent before
  // the subscription is ignored, and the subscription that follows is used as usual.
  @Test func completionBeforeSubscription_isIgnored() {
    let probe = SubscriptionProbe()
    let recorder = RecordingSubscriber<Int, Never>()
    LateSubscriptionPublisher<Int>(value: nil, subscription: probe).append(7, 8).subscribe(recorder)
    #expect(recorder.events == [.subscription])
    #expect(probe.requested == [.unlimited])
    #expect(!probe.cancelled)
  }

  // Differential oracle (issue 42): `append u late1 f0 V1.1 S1 v1.2`. A value the second
  // publisher sends before its subscription goes down when the subscriber has demand, as
  // Combine's `retry` passes on a value its new upstream sends before its subscription
  // (OpenCombine's `RetryTests.testRecurseAndReceiveValue`); OpenCombine's `append` drops it.
  @Test func suffixValueBeforeItsSubscription_isDeliveredWithinDemand() {
    let probe = SubscriptionProbe()
    let recorder = RecordingSubscriber<Int, Never>()
    Just(1).append(LateSubscriptionPublisher<Int>(value: 2, subscription: probe))
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1), .value(2)])
    #expect(probe.requested == [.unlimited])
  }

  @Test func cancelInsideReceive_stillReturnsTheSubscribersDemand() {
    // As Combine: the demand goes back to the upstream that sent the value, even after a
    // cancel from inside `receive(_:)`.
    let source = CombiningPushSource<Int, Never>()
    source.append(Just(9)).subscribe(CancelInReceiveSubscriber<Int, Never>(returning: .unlimited))
    #expect(source.send(1) == .unlimited)
    #expect(source.cancelled)
  }

  let first = TestPublisher<Int, TestError>()
  let second = TestPublisher<Int, TestError>()

  @Test func appendValues_publishesUpstreamThenValues() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2].publisher.append(3, 4).subscribe(recorder)
    #expect(
      recorder.events == [.subscription] + [1, 2, 3, 4].map { .value($0) } + [
        .completion(.finished)
      ]
    )
  }

  @Test func appendSequenceAndPrepend_combine() {
    let recorder = RecordingSubscriber<Int, Never>()
    [3].publisher.append(4...5).prepend(1, 2).prepend([0]).subscribe(recorder)
    #expect(recorder.values == [0, 1, 2, 3, 4, 5])
    #expect(recorder.completion == .finished)
  }

  @Test func appendPublisher_subscribesSuffixOnlyAfterPrefixFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.append(second).subscribe(recorder)
    #expect(first.subscriptionCount == 1)
    #expect(second.subscriptionCount == 0)
    first.send(1)
    first.send(completion: .finished)
    #expect(second.subscriptionCount == 1)
    second.send(2)
    second.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func prependPublisher_putsItFirst() {
    let recorder = RecordingSubscriber<Int, TestError>()
    second.prepend(first).subscribe(recorder)
    #expect(second.subscriptionCount == 0)
    first.send(1)
    first.send(completion: .finished)
    second.send(2)
    #expect(recorder.values == [1, 2])
  }

  @Test func demandNone_deliversNothingUntilRequested() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    [1].publisher.append(2).subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func remainingDemand_carriedToSuffix() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(5))
    first.append(second).subscribe(recorder)
    first.send(1)
    first.send(2)
    first.send(completion: .finished)
    #expect(first.requests == [.demand(.max(5))])
    #expect(second.requests == [.demand(.max(3))])
  }

  @Test func demandRequestedBetweenStages_reachesSuffix() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    first.append(second).subscribe(recorder)
    first.send(completion: .finished)
    recorder.request(.max(2))
    #expect(second.requests == [.demand(.max(2))])
  }

  @Test func maxOne_toppedUpFromReceive_deliversAll() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<3).publisher.append(3..<6).subscribe(recorder)
    #expect(recorder.values == Array(0..<6))
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func prefixFails_suffixNeverSubscribed() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.append(second).subscribe(recorder)
    first.send(1)
    first.send(completion: .failure(TestError()))
    #expect(second.subscriptionCount == 0)
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
  }

  @Test func prefixFailsBeforeValues_failsAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>()
    Fail<Int, TestError>(error: TestError()).append(second).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func suffixFails_failureGoesDownstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.append(second).subscribe(recorder)
    first.send(completion: .finished)
    second.send(7)
    second.send(completion: .failure(TestError(code: 2)))
    #expect(
      recorder.events == [.subscription, .value(7), .completion(.failure(TestError(code: 2)))]
    )
  }

  @Test func cancelBeforeValues_cancelsPrefix() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    first.append(second).subscribe(recorder)
    recorder.cancel()
    first.send(1)
    first.send(completion: .finished)
    #expect(first.requests == [.demand(.max(1)), .cancel])
    #expect(second.subscriptionCount == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelDuringSuffix_cancelsSuffix() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.append(second).subscribe(recorder)
    first.send(completion: .finished)
    second.send(1)
    recorder.cancel()
    second.send(2)
    #expect(second.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.values == [1])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1].publisher.append(2).subscribe(recorder)
    let events = recorder.events
    recorder.cancel()
    #expect(recorder.events == events)
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    (0..<3).publisher.append(3, 4).subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(0)])
  }

  @Test func requestFromReceive_continuesIntoSuffix() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    [1].publisher.append(2, 3).subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
  }

  @Test func subscription_releasedAfterCancel() {
    let subscriber = WeakSubscriber<Int, TestError>()
    first.append(second).subscribe(subscriber)
    #expect(subscriber.subscription != nil)
    subscriber.cancel()
    #expect(subscriber.subscription == nil)
  }

  @Test func subscription_releasedAfterCompletion() {
    let subscriber = WeakSubscriber<Int, TestError>()
    first.append(second).subscribe(subscriber)
    first.send(completion: .finished)
    second.send(completion: .finished)
    #expect(subscriber.isCompleted)
    #expect(subscriber.subscription == nil)
  }

  /// As Combine's (OpenCombine's `ConcatenateTests.testCombineIdentifier`): the prefix's and the
  /// suffix's subscribers are of different types.
  @Test func prefixAndSuffix_subscribersAreOfDifferentTypes() {
    let prefix = TypeRecordingPublisher()
    let suffix = TypeRecordingPublisher()
    let recorder = RecordingSubscriber<Int, Never>()
    prefix.append(suffix).subscribe(recorder)
    let types = [prefix.subscriberType, suffix.subscriberType].compactMap { $0 }
    #expect(types.count == 2)
    #expect(Set(types.map(ObjectIdentifier.init)).count == 2)
    #expect(recorder.completion == .finished)
  }

  @Test func description_isConcatenate() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.append(second).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Concatenate")
  }

  @Test func equatable_comparesParts() {
    #expect([1].publisher.append(2) == [1].publisher.append(2))
    #expect([1].publisher.append(2) != [1].publisher.append(3))
  }

  @Test func concatenate_conforms() {
    PublisherConformance(
      elements: 4,
      makePublisher: { [1, 2].publisher.append(3, 4) },
      makeLongPublisher: { Array(0..<500_000).publisher.append(Array(500_000..<1_000_000)) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func concatenateFailing_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2])
          .append(Publishers.Sequence<[Int], TestError>(sequence: [3]))
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).append(Fail(error: TestError()))
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}

/// A publisher that is a class, to see when it is released; it never sends anything.
private final class KeptPublisher: Publisher, Sendable {
  typealias Output = Int
  typealias Failure = Never

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
}

/// A publisher that keeps its subscribers and finishes them when it is released.
// Sendable: used on one thread only.
private final class FinishingOnRelease: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  private var subscribers: [AnySubscriber<Int, Never>] = []

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscribers.append(AnySubscriber(subscriber))
    subscriber.receive(subscription: Subscriptions.empty)
  }

  deinit {
    for subscriber in subscribers { subscriber.receive(completion: .finished) }
  }
}

/// A publisher that notes its subscriber's type and finishes at once.
// Sendable: used on one thread only.
private final class TypeRecordingPublisher: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never
  private(set) var subscriberType: Any.Type?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriberType = S.self
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .finished)
  }
}
