import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

/// A scheduler that records the tolerance and options of each delayed action and runs nothing.
// Sendable: `recorded` is only reached under `lock`.
private final class RetrySpyScheduler: Scheduler, @unchecked Sendable {
  typealias SchedulerTimeType = VirtualTime
  typealias SchedulerOptions = String

  private let lock = Lock()
  private var recorded: [(VirtualTime.Stride, String?)] = []

  var calls: [(VirtualTime.Stride, String?)] { lock.withLock { recorded } }
  var now: VirtualTime { VirtualTime(0) }
  var minimumTolerance: VirtualTime.Stride { 7 }

  func schedule(options: String?, _ action: @escaping @Sendable () -> Void) {}

  func schedule(
    after date: VirtualTime,
    tolerance: VirtualTime.Stride,
    options: String?,
    _ action: @escaping @Sendable () -> Void
  ) {
    lock.withLock { recorded.append((tolerance, options)) }
  }

  func schedule(
    after date: VirtualTime,
    interval: VirtualTime.Stride,
    tolerance: VirtualTime.Stride,
    options: String?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    AnyCancellable {}
  }
}

@Suite(.timeLimit(.minutes(5))) struct DelayedRetryTests {

  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func failure_resubscribesOnlyAfterEachInterval() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: scheduler, intervals: [1.0, 2.0]).subscribe(recorder)
    #expect(upstream.subscriptionCount == 1)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance(by: .milliseconds(999))
    #expect(upstream.subscriptionCount == 1)
    scheduler.advance(by: .milliseconds(1))
    #expect(upstream.subscriptionCount == 2)
    #expect(recorder.completion == nil)
  }

  @Test func failuresBeyondIntervals_failDownstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    var attempts: [TestPublisher<Int, TestError>]
    let made = RetryBox<[TestPublisher<Int, TestError>]>([])
    Deferred { () -> TestPublisher<Int, TestError> in
      let fresh = TestPublisher<Int, TestError>()
      made.mutate { $0.append(fresh) }
      return fresh
    }
    .retry(on: scheduler, intervals: [1.0, 2.0])
    .subscribe(recorder)
    attempts = made.value
    attempts[0].send(completion: .failure(TestError()))
    scheduler.advance(by: .seconds(1))
    attempts = made.value
    #expect(attempts.count == 2)
    attempts[1].send(completion: .failure(TestError()))
    scheduler.advance(by: .milliseconds(1999))
    #expect(made.value.count == 2)
    scheduler.advance(by: .milliseconds(1))
    attempts = made.value
    #expect(attempts.count == 3)
    #expect(recorder.completion == nil)
    attempts[2].send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func nonPositiveIntervals_resubscribeAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: scheduler, intervals: [0.0, -1.0]).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.completion == .failure(TestError()))
    #expect(upstream.subscriptionCount == 3)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func strideIntervals_waitInSchedulerTime() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: scheduler, intervals: [VirtualTime.Stride(5)]).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance(by: 4)
    #expect(upstream.subscriptionCount == 1)
    scheduler.advance(by: 1)
    #expect(upstream.subscriptionCount == 2)
  }

  @Test func retryAfterValues_carriesUnmetDemandAndKeepsValues() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(5))
    let made = RetryBox<[TestPublisher<Int, TestError>]>([])
    Deferred { () -> TestPublisher<Int, TestError> in
      let fresh = TestPublisher<Int, TestError>()
      made.mutate { $0.append(fresh) }
      return fresh
    }
    .retry(on: scheduler, intervals: [1.0])
    .subscribe(recorder)
    let first = made.value[0]
    first.send(1)
    first.send(2)
    first.send(completion: .failure(TestError()))
    #expect(recorder.values == [1, 2])
    scheduler.advance(by: .seconds(1))
    let second = made.value[1]
    #expect(first.requests == [.demand(.max(5))])
    #expect(second.requests == [.demand(.max(3))])
    second.send(1)
    second.send(completion: .finished)
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .value(1), .completion(.finished)]
    )
  }

  @Test func requestDuringWait_addsToCarriedDemand() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    let made = RetryBox<[TestPublisher<Int, TestError>]>([])
    Deferred { () -> TestPublisher<Int, TestError> in
      let fresh = TestPublisher<Int, TestError>()
      made.mutate { $0.append(fresh) }
      return fresh
    }
    .retry(on: scheduler, intervals: [1.0])
    .subscribe(recorder)
    made.value[0].send(completion: .failure(TestError()))
    recorder.request(.max(2))
    scheduler.advance(by: .seconds(1))
    #expect(made.value[1].requests == [.demand(.max(3))])
  }

  @Test func finished_passesThroughWithoutRetry() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: scheduler, intervals: [1.0]).subscribe(recorder)
    upstream.send(3)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(3), .completion(.finished)])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func cancelDuringWait_noResubscription() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: scheduler, intervals: [1.0]).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    recorder.cancel()
    scheduler.advance(by: .seconds(2))
    #expect(upstream.subscriptionCount == 1)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelDuringAttempt_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: scheduler, intervals: [1.0]).subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription])
  }

  @Test func toleranceAndOptions_passedToScheduler() {
    let spy = RetrySpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: spy, tolerance: 3, options: "opt", intervals: [1.0]).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    let calls = spy.calls
    #expect(calls.count == 1)
    #expect(calls.first?.0 == 3)
    #expect(calls.first?.1 == "opt")
  }

  @Test func noTolerance_usesMinimumTolerance() {
    let spy = RetrySpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.retry(on: spy, intervals: [1.0]).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(spy.calls.first?.0 == 7)
    #expect(spy.calls.first?.1 == nil)
  }

  @Test func retry_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        let attempts = RetryBox(0)
        return Deferred { () -> AnyPublisher<Int, TestError> in
          var first = false
          attempts.mutate {
            first = $0 == 0
            $0 += 1
          }
          return first
            ? Fail<Int, TestError>(error: TestError()).eraseToAnyPublisher()
            : Record<Int, TestError>(output: [1, 2, 3], completion: .finished).eraseToAnyPublisher()
        }
        .retry(on: ImmediateScheduler.shared, intervals: [0])
        .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).eraseToAnyPublisher()
          .retry(on: ImmediateScheduler.shared, intervals: [0, 0])
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}

/// A value behind a lock, for closures the tests hand to `Deferred`.
// Sendable: `stored` is only reached under `lock`.
private final class RetryBox<Value>: @unchecked Sendable {
  private let lock = Lock()
  private var stored: Value

  init(_ value: Value) { stored = value }

  var value: Value { lock.withLock { stored } }

  func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
