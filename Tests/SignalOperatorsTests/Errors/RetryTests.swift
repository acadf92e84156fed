import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct RetryTests {
  @Test func demandReturnedFromReceive_isRequestedUpstreamNotReturned() {
    // As Combine: the subscriber's extra demand goes to the live attempt as a request, and
    // `receive(_:)` returns `.none` to it.
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.retry(1).subscribe(recorder)
    upstream.send(1)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1))])
    #expect(upstream.outstandingDemand == .max(1))
    #expect(upstream.violations.isEmpty)
  }

  let upstream = TestPublisher<Int, TestError>()

  @Test func failure_resubscribesAndDeliversEveryAttempt() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let attempts = Attempts(failures: 2)
    attempts.publisher.retry(3).subscribe(recorder)
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.completion == .finished)
    #expect(attempts.count == 3)
  }

  @Test func retriesExhausted_lastFailureGoesDownstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let attempts = Attempts(failures: 10)
    attempts.publisher.retry(2).subscribe(recorder)
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.completion == .failure(TestError(code: 2)))
    #expect(attempts.count == 3)
  }

  @Test func retryZero_forwardsFirstFailure() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let attempts = Attempts(failures: 10)
    attempts.publisher.retry(0).subscribe(recorder)
    #expect(recorder.completion == .failure(TestError(code: 0)))
    #expect(attempts.count == 1)
  }

  @Test func manySynchronousFailures_doNotRecurse() {
    let recorder = RecordingSubscriber<Int, TestError>()
    Fail<Int, TestError>(error: TestError()).retry(100_000).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func unlimitedRetries_retryUntilSuccess() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let attempts = Attempts(failures: 50)
    Publishers.Retry(upstream: attempts.publisher, retries: nil).subscribe(recorder)
    #expect(recorder.completion == .finished)
    #expect(attempts.count == 51)
  }

  @Test func negativeRetries_retryForEver_asCombines() {
    // OpenCombine's `RetryTests.testRetryNegativeAmountOfTimes`.
    let upstream = LoggedPublisher<Int, TestError>("up", log: CallLog())
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    Publishers.Retry(upstream: upstream, retries: -1).subscribe(recorder)
    for _ in 0..<100 { upstream.send(completion: .failure(TestError())) }
    #expect(upstream.log.calls.count == 101)  // a request for each of the 101 subscriptions
    #expect(recorder.events == [.subscription])
  }

  @Test func valueBeyondDemand_traps_asCombineDoes() async {
    // OpenCombine's `RetryTests.testCrashesOnUnwantedValue`.
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = LoggedPublisher<Int, TestError>("up", log: CallLog())
      upstream.retry(2).subscribe(RecordingSubscriber<Int, TestError>(initialDemand: nil))
      upstream.send(-1)
    }
    expectTrap(trap, "Retry: the upstream sent a value beyond the subscriber's demand")
  }

  @Test func subscriberAttachedUpstream_isTheSubscription_forCancel() {
    // As Combine's, where the subscriber attached upstream is the subscription (OpenCombine's
    // `RetryTests.testRetryCancelBeforeSubscription`): cancelling it before the upstream's
    // subscription arrives cancels that subscription when it does.
    let probe = SubscriptionProbe()
    let upstream = DeferredSubscriptionPublisher()
    upstream.retry(1).subscribe(RecordingSubscriber<Int, Never>())
    let subscriber = upstream.subscriber as? any Subscription
    #expect(subscriber != nil)
    subscriber?.cancel()
    upstream.send(subscription: probe)
    #expect(probe.cancelled)
  }

  @Test func remainingDemand_carriedToNextAttempt() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(3))
    upstream.retry(1).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    // The failed TestPublisher gives the new subscriber its failure at once.
    #expect(upstream.subscriptionCount == 2)
    #expect(upstream.requests == [.demand(.max(3)), .demand(.max(2))])
    #expect(recorder.completion == .failure(TestError()))
  }

  @Test func demandNone_nextAttemptWaitsForRequest() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    let attempts = Attempts(failures: 1)
    attempts.publisher.retry(1).subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.values == [0])
    recorder.request(.max(1))
    #expect(recorder.values == [0, 1])
    #expect(recorder.completion == .finished)
  }

  @Test func maxOne_toppedUpFromReceive_deliversAll() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    let attempts = Attempts(failures: 3)
    attempts.publisher.retry(5).subscribe(recorder)
    #expect(recorder.values == [0, 1, 2, 3])
    #expect(recorder.violations.isEmpty)
  }

  @Test func finishes_withoutRetry() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(3).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(upstream.subscriptionCount == 1)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func cancel_cancelsCurrentAttemptAndStopsRetrying() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(3).subscribe(recorder)
    recorder.cancel()
    upstream.send(completion: .failure(TestError()))
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(upstream.subscriptionCount == 1)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    Attempts(failures: 2).publisher.retry(3).subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(0)])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    let cancelled = WeakSubscriber<Int, TestError>()
    upstream.retry(1).subscribe(cancelled)
    cancelled.cancel()
    #expect(cancelled.subscription == nil)
    let completed = WeakSubscriber<Int, TestError>()
    Fail<Int, TestError>(error: TestError()).retry(2).subscribe(completed)
    #expect(completed.isCompleted)
    #expect(completed.subscription == nil)
  }

  @Test func description_isRetry() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(1).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Retry")
  }

  @Test func retry_conforms() {
    // One `Attempts` counts the subscriptions of all subscribers, so two subscribers to one
    // publisher see different attempts.
    PublisherConformance(
      elements: 3,
      independentSubscriptions: false,
      makePublisher: { Attempts(failures: 2).publisher.retry(2) },
      makeFailingPublisher: { Attempts(failures: 5).publisher.retry(2) },
      makeLongPublisher: { Attempts(failures: 1, tail: 1_000_000).publisher.retry(1) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-5.01"])
  }
}

/// A publisher whose `n`th subscription sends `n` and fails with `TestError(code: n)`, until
/// `failures` subscriptions have failed; the next one sends its number (and `tail` more values)
/// and finishes.
// Sendable: `subscriptions` is only reached under `lock`.
private final class Attempts: @unchecked Sendable {
  private let lock = Lock()
  private var subscriptions = 0
  let failures: Int
  let tail: Int

  init(failures: Int, tail: Int = 0) {
    self.failures = failures
    self.tail = tail
  }

  var count: Int { lock.withLock { subscriptions } }

  var publisher: Deferred<AnyPublisher<Int, TestError>> {
    Deferred {
      let number = self.lock.withLock { () -> Int in
        defer { self.subscriptions += 1 }
        return self.subscriptions
      }
      if number < self.failures {
        return Publishers.Sequence<[Int], TestError>(sequence: [number])
          .append(Fail(error: TestError(code: number)))
          .eraseToAnyPublisher()
      }
      return Publishers.Sequence<[Int], TestError>(sequence: [number])
        .append(Publishers.Sequence(sequence: (number + 1)..<(number + 1 + self.tail)))
        .eraseToAnyPublisher()
    }
  }
}

/// A publisher that keeps its subscriber and hands it a subscription only when told to.
// Sendable: used on one thread only.
private final class DeferredSubscriptionPublisher: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  private(set) var subscriber: Any?
  private var deliver: ((any Subscription) -> Void)?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = subscriber
    deliver = { subscriber.receive(subscription: $0) }
  }

  func send(subscription: any Subscription) { deliver?(subscription) }
}
