import Dispatch
import Foundation
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct RetryWhenTests {
  /// Fails with `TestError` after sending `1`, the first `failures` times it is subscribed to;
  /// then sends `1`, `2` and finishes.
  static func flaky(
    failures: Int,
    subscriptions: SubscriptionCounter
  ) -> AnyPublisher<Int, TestError> {
    Deferred { () -> AnyPublisher<Int, TestError> in
      let count = subscriptions.increment()
      if count <= failures {
        return Just(1).setFailureType(to: TestError.self)
          .append(Fail(error: TestError())).eraseToAnyPublisher()
      }
      return [1, 2].publisher.setFailureType(to: TestError.self).eraseToAnyPublisher()
    }
    .eraseToAnyPublisher()
  }

  @Test func eachTriggerValue_resubscribes_untilTheUpstreamFinishes() {
    let subscriptions = SubscriptionCounter()
    let recorder = RecordingSubscriber<Int, TestError>()
    Self.flaky(failures: 2, subscriptions: subscriptions)
      .retryWhen { failures in failures.map { _ in () } }
      .subscribe(recorder)
    #expect(recorder.values == [1, 1, 1, 2])
    #expect(recorder.completion == .finished)
    #expect(subscriptions.count == 3)
    #expect(recorder.subscriptionDescription == "RetryWhen")
    #expect(recorder.violations.isEmpty)
  }

  @Test func retryWhenSpelling_isTheSame() {
    let subscriptions = SubscriptionCounter()
    let recorder = RecordingSubscriber<Int, TestError>()
    Self.flaky(failures: 1, subscriptions: subscriptions)
      .retry(when: { failures in failures })
      .subscribe(recorder)
    #expect(recorder.values == [1, 1, 2])
    #expect(recorder.completion == .finished)
  }

  @Test func triggerFinishes_finishesThePublisher() {
    let subscriptions = SubscriptionCounter()
    let recorder = RecordingSubscriber<Int, TestError>()
    Self.flaky(failures: 10, subscriptions: subscriptions)
      .retryWhen { failures in failures.prefix(2) }
      .subscribe(recorder)
    // The first failure is retried. At the second, the trigger publishes a value and then
    // finishes in the same call: the retry it asked for would start when that call returns, but
    // the finish came first and ended everything.
    #expect(recorder.completion == .finished)
    #expect(subscriptions.count == 2)
    #expect(recorder.values == [1, 1])
  }

  @Test func triggerFailsWithTheUpstreamsType_failsThePublisher() {
    let subscriptions = SubscriptionCounter()
    let recorder = RecordingSubscriber<Int, TestError>()
    Self.flaky(failures: 10, subscriptions: subscriptions)
      .retryWhen { failures in
        failures.setFailureType(to: TestError.self).tryMap { error -> Void in throw error }
      }
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
    #expect(subscriptions.count == 1)
  }

  @Test func triggerFailsWithAnotherType_finishes() {
    struct Other: Error {}
    let recorder = RecordingSubscriber<Int, TestError>()
    Fail<Int, TestError>(error: TestError())
      .retryWhen { failures in
        failures.setFailureType(to: Other.self).tryMap { _ -> Void in throw Other() }
      }
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func asynchronousTrigger_waitsThenResubscribes_keepingUnmetDemand() {
    // A fresh TestPublisher per subscription: a TestPublisher that failed stays failed.
    let upstreams = Mutex<[TestPublisher<Int, TestError>]>([])
    let source = Deferred { () -> TestPublisher<Int, TestError> in
      let upstream = TestPublisher<Int, TestError>()
      upstreams.withLock { $0.append(upstream) }
      return upstream
    }
    func upstream(_ index: Int) -> TestPublisher<Int, TestError> {
      upstreams.withLock { $0[index] }
    }
    let trigger = PassthroughSubject<Void, Never>()
    let seen = Mutex<[TestError]>([])
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(3))
    source
      .retryWhen { failures in
        failures.handleEvents(receiveOutput: { error in seen.withLock { $0.append(error) } })
          .flatMap { _ in trigger.first() }
      }
      .subscribe(recorder)
    upstream(0).send(1)
    upstream(0).send(completion: .failure(TestError()))
    #expect(seen.withLock { $0 } == [TestError()])
    #expect(upstreams.withLock { $0.count } == 1)
    trigger.send(())
    #expect(upstreams.withLock { $0.count } == 2)
    // The new subscription is asked for the two values still owed.
    #expect(upstream(0).requests == [.demand(.max(3))])
    #expect(upstream(1).requests == [.demand(.max(2))])
    upstream(1).send(2)
    upstream(1).send(3)
    #expect(recorder.values == [1, 2, 3])
    #expect(upstream(1).outstandingDemand == .none)
    upstream(1).send(completion: .finished)
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
    #expect(upstream(1).violations.isEmpty)
  }

  @Test func triggerValueWhileTheUpstreamIsLive_isIgnored() {
    let upstream = TestPublisher<Int, TestError>()
    let trigger = PassthroughSubject<Void, Never>()
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retryWhen { _ in trigger }.subscribe(recorder)
    trigger.send(())
    #expect(upstream.subscriptionCount == 1)
    upstream.send(1)
    #expect(recorder.values == [1])
  }

  @Test func triggerFinishesWhileTheUpstreamIsLive_cancelsIt() {
    let upstream = TestPublisher<Int, TestError>()
    let trigger = PassthroughSubject<Void, Never>()
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retryWhen { _ in trigger }.subscribe(recorder)
    trigger.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func triggerFinishesWhileAValueIsBeingDelivered_completionWaitsForIt() {
    let upstream = PassthroughSubject<Int, TestError>()
    let trigger = PassthroughSubject<Void, Never>()
    let subscriber = BlockingSubscriber()
    upstream.retryWhen { _ in trigger }.subscribe(subscriber)
    let sender = DispatchGroup()
    DispatchQueue.global().async(group: sender) { upstream.send(1) }
    #expect(subscriber.entered.wait(timeout: .now() + 30) == .success)
    // The value is in the subscriber on another thread; the trigger ends the stream now.
    trigger.send(completion: .finished)
    #expect(subscriber.log == ["value 1 start"])
    subscriber.release.signal()
    #expect(sender.wait(timeout: .now() + 30) == .success)
    #expect(subscriber.log == ["value 1 start", "value 1 end", "finished"])
    upstream.send(2)
    #expect(subscriber.log.count == 3)
  }

  @Test func triggerFinishesAtOnce_subscriberGetsASubscriptionThenTheFinish() {
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retryWhen { _ in Empty<Void, Never>() }.subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.subscriptionCount == 0)
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsUpstreamAndTrigger_andReleasesEverything() {
    let upstream = TestPublisher<Int, TestError>()
    let trigger = TestPublisher<Void, Never>()
    weak var weakSubscription: AnyObject?
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      upstream.retryWhen { _ in trigger }.subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      upstream.send(1)
      recorder.cancel()
      upstream.send(2)
      #expect(recorder.values == [1])
    }
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(trigger.requests == [.demand(.unlimited), .cancel])
    #expect(weakSubscription == nil)
    #expect(weakRecorder == nil)
  }

  @Test func upstreamFinish_cancelsTheTrigger_andReleasesEverything() {
    let upstream = TestPublisher<Int, TestError>()
    let trigger = TestPublisher<Void, Never>()
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.retryWhen { _ in trigger }.subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      upstream.send(completion: .finished)
      #expect(recorder.completion == .finished)
    }
    #expect(trigger.requests == [.demand(.unlimited), .cancel])
    #expect(weakSubscription == nil)
  }

  @Test func manySynchronousRetries_doNotGrowTheStack() {
    let subscriptions = SubscriptionCounter()
    let recorder = RecordingSubscriber<Int, TestError>()
    Self.flaky(failures: 20_000, subscriptions: subscriptions)
      .retryWhen { failures in failures }
      .subscribe(recorder)
    #expect(recorder.values.count == 20_002)
    #expect(recorder.completion == .finished)
  }

  @Test func retryWhen_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [1, 2, 3].publisher.setFailureType(to: TestError.self)
          .retryWhen { failures in failures }
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).prepend(1)
          .retryWhen { failures in
            failures.setFailureType(to: TestError.self).tryMap { error -> Void in throw error }
          }
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        (0..<100_000).publisher.setFailureType(to: TestError.self)
          .retryWhen { failures in failures }
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}

/// Counts subscriptions from any thread.
// Sendable: `value` is guarded by its mutex.
final class SubscriptionCounter: Sendable {
  private let value = Mutex(0)

  /// Adds one and returns the new count.
  func increment() -> Int {
    value.withLock {
      $0 += 1
      return $0
    }
  }

  var count: Int { value.withLock { $0 } }
}

/// A subscriber whose first value blocks until the test releases it, logging when each call
/// starts and ends.
// Sendable: `entries` is guarded by `lock`; the semaphores are thread-safe.
private final class BlockingSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = TestError

  let entered = DispatchSemaphore(value: 0)
  let release = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var entries: [String] = []

  var log: [String] { lock.withLock { entries } }

  func receive(subscription: any Subscription) {
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    lock.withLock { entries.append("value \(input) start") }
    entered.signal()
    _ = release.wait(timeout: .now() + 30)
    lock.withLock { entries.append("value \(input) end") }
    return .none
  }

  func receive(completion: Subscribers.Completion<TestError>) {
    lock.withLock { entries.append(completion == .finished ? "finished" : "failed") }
  }
}
