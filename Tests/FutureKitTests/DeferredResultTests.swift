import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeferredResultTests {

  let runs = LockedState(0)

  private func counting(
    _ result: Result<Int, TestError> = .success(7)
  ) -> DeferredResult<Int, TestError> {
    DeferredResult { [runs] in
      runs.withLock { $0 += 1 }
      return result
    }
  }

  @Test func subscribeWithoutDemand_doesNotRunTheClosure() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func success_sendsTheValueThenFinished() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    counting().subscribe(recorder)
    recorder.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func failure_failsWithTheErrorAndNoValue() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    counting(.failure(TestError())).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func laterRequests_doNotRunTheClosureAgain() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    counting().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.request(.max(2))
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
  }

  @Test func eachSubscription_runsTheClosureAgain() {
    let publisher = counting()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(runs.withLock { $0 } == 2)
    #expect(first.values == [7])
    #expect(second.values == [7])
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

  @Test func cancelFromReceive_sendsNoCompletion() {
    let box = LockedState<RecordingSubscriber<Int, TestError>?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      box.withLock { $0 }?.cancel()
      return .none
    }
    box.withLock { $0 = recorder }
    counting().subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(7)])
    box.withLock { $0 = nil }
  }

  @Test func concurrentFirstRequests_runTheClosureExactlyOnce() {
    for _ in 0..<100 {
      let runs = LockedState(0)
      let publisher = DeferredResult<Int, TestError> {
        runs.withLock { $0 += 1 }
        return .success(1)
      }
      let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(runs.withLock { $0 } == 1)
      #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    }
  }

  @Test func afterCompletionOrCancel_subscriberIsReleased() {
    weak var completed: RecordingSubscriber<Int, TestError>?
    weak var cancelled: RecordingSubscriber<Int, TestError>?
    do {
      let first = RecordingSubscriber<Int, TestError>()
      let second = RecordingSubscriber<Int, TestError>(initialDemand: nil)
      completed = first
      cancelled = second
      counting(.failure(TestError())).subscribe(first)
      counting().subscribe(second)
      second.cancel()
    }
    #expect(completed == nil)
    #expect(cancelled == nil)
  }

  @Test func subscription_describesItselfAsDeferredResult() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredResult")
  }

  @Test func conformanceKit_passesEveryRule() {
    let report = PublisherConformance(
      elements: 1,
      makePublisher: { DeferredResult<Int, TestError> { .success(1) } },
      makeFailingPublisher: { DeferredResult<Int, TestError> { .failure(TestError()) } }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }
}
