import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeferredCompleteTests {

  /// Counts how often an `error:` autoclosure is evaluated.
  static func makeBoom(counting evaluations: LockedState<Int>) -> TestError {
    evaluations.withLock { $0 += 1 }
    return TestError(code: 1)
  }

  let runs = LockedState(0)

  private func counting(_ error: TestError? = nil) -> DeferredComplete<Int, TestError> {
    DeferredComplete { [runs] in
      runs.withLock { $0 += 1 }
      return error
    }
  }

  // MARK: init()

  @Test func plainInit_finishesOnTheFirstRequestNotOnSubscribe() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    DeferredComplete<Int, TestError>().subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func plainInit_cancelledBeforeTheFirstRequest_sendsNothing() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    DeferredComplete<Int, Never>().subscribe(recorder)
    recorder.cancel()
    #expect(recorder.events == [.subscription])
  }

  // MARK: init(output:closure:)

  @Test func closure_doesNotRunOnSubscribe() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
  }

  @Test func closureReturningNil_finishes() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    counting().subscribe(recorder)
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func closureReturningAnError_failsWithIt() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    counting(TestError(code: 2)).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 2)))])
  }

  @Test func outputParameter_setsTheOutputType() {
    let publisher = DeferredComplete(output: String.self) { TestError?.none }
    let recorder = RecordingSubscriber<String, TestError>()
    publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func eachSubscription_runsTheClosureOnce() throws {
    let publisher = counting()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    publisher.subscribe(first)
    publisher.subscribe(second)
    let subscription = try #require(second.subscription)
    second.request(.max(1))
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 2)
  }

  @Test func cancelBeforeTheFirstRequest_neverRunsTheClosure() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    counting().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.cancel()
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func concurrentFirstRequests_runTheClosureExactlyOnce() {
    for _ in 0..<100 {
      let runs = LockedState(0)
      let publisher = DeferredComplete<Int, TestError> {
        runs.withLock { $0 += 1 }
        return nil
      }
      let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(runs.withLock { $0 } == 1)
      #expect(recorder.events == [.subscription, .completion(.finished)])
    }
  }

  // MARK: init(error:)

  @Test func errorInit_evaluatesTheErrorLazilyOncePerSubscription() {
    let evaluations = LockedState(0)
    let publisher = DeferredComplete<Int, TestError>(error: Self.makeBoom(counting: evaluations))
    let first = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    publisher.subscribe(first)
    #expect(evaluations.withLock { $0 } == 0)
    first.request(.max(1))
    #expect(evaluations.withLock { $0 } == 1)
    #expect(first.events == [.subscription, .completion(.failure(TestError(code: 1)))])

    let second = RecordingSubscriber<Int, TestError>()
    publisher.subscribe(second)
    #expect(evaluations.withLock { $0 } == 2)
    #expect(second.completion == .failure(TestError(code: 1)))
  }

  @Test func errorInit_cancelledBeforeTheFirstRequest_neverEvaluatesTheError() {
    let evaluations = LockedState(0)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    DeferredComplete<Int, TestError>(error: Self.makeBoom(counting: evaluations)).subscribe(
      recorder
    )
    recorder.cancel()
    #expect(evaluations.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  // MARK: Resources and description

  @Test func afterCompletionOrCancel_subscriberIsReleased() {
    weak var completed: RecordingSubscriber<Int, TestError>?
    weak var cancelled: RecordingSubscriber<Int, TestError>?
    do {
      let first = RecordingSubscriber<Int, TestError>()
      let second = RecordingSubscriber<Int, TestError>(initialDemand: nil)
      completed = first
      cancelled = second
      counting(TestError()).subscribe(first)
      counting().subscribe(second)
      second.cancel()
    }
    #expect(completed == nil)
    #expect(cancelled == nil)
  }

  @Test func subscription_describesItselfAsDeferredComplete() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    DeferredComplete<Int, TestError>().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredComplete")
  }

  @Test func conformanceKit_passesEveryRule() {
    let report = PublisherConformance(
      elements: 0,
      makePublisher: { DeferredComplete<Int, TestError> { nil } },
      makeFailingPublisher: { DeferredComplete<Int, TestError>(error: TestError()) }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.01", "SC-3.02"])
    #expect(report.outcome(of: .finiteElementsThenFinished) == .passed)
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }

  @Test func conformanceKit_plainInit_passesEveryRule() {
    PublisherConformance(elements: 0) { DeferredComplete<Int, Never>() }.run().expectAllPassed(
      skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
  }
}
