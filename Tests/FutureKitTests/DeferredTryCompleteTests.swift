import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamTesting
import Testing

private func isFinished(_ completion: Subscribers.Completion<any Error>?) -> Bool {
  if case .finished = completion { true } else { false }
}

@Suite(.timeLimit(.minutes(5))) struct DeferredTryCompleteTests {

  let runs = LockedState(0)

  private func counting(throwing: Bool = false) -> DeferredTryComplete<Int> {
    DeferredTryComplete { [runs] in
      runs.withLock { $0 += 1 }
      if throwing { throw TestError() }
    }
  }

  @Test func plainInit_finishesOnTheFirstRequestNotOnSubscribe() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    DeferredTryComplete<Int>().subscribe(recorder)
    #expect(recorder.events.count == 1)
    recorder.request(.max(1))
    #expect(recorder.events.count == 2)
    #expect(isFinished(recorder.completion))
  }

  @Test func outputParameter_setsTheOutputType() {
    let recorder = RecordingSubscriber<String, any Error>()
    DeferredTryComplete(output: String.self).subscribe(recorder)
    #expect(isFinished(recorder.completion))
  }

  @Test func subscribeWithoutDemand_doesNotRunTheClosure() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events.count == 1)
  }

  @Test func returningClosure_finishes() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    counting().subscribe(recorder)
    recorder.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.values.isEmpty)
    #expect(isFinished(recorder.completion))
    #expect(recorder.violations.isEmpty)
  }

  @Test func throwingClosure_failsWithTheError() throws {
    let recorder = RecordingSubscriber<Int, any Error>()
    counting(throwing: true).subscribe(recorder)
    guard case .failure(let error) = try #require(recorder.completion) else {
      Issue.record("expected a failure, got \(recorder.events)")
      return
    }
    #expect(error as? TestError == TestError())
    #expect(recorder.events.count == 2)
  }

  @Test func eachSubscription_runsTheClosureOnce() throws {
    let publisher = counting()
    let first = RecordingSubscriber<Int, any Error>()
    let second = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    publisher.subscribe(first)
    publisher.subscribe(second)
    let subscription = try #require(second.subscription)
    subscription.request(.max(1))
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 2)
  }

  @Test func cancelBeforeTheFirstRequest_neverRunsTheClosure() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    counting().subscribe(recorder)
    recorder.cancel()
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events.count == 1)
  }

  @Test func concurrentFirstRequests_runTheClosureExactlyOnce() {
    for _ in 0..<100 {
      let runs = LockedState(0)
      let publisher = DeferredTryComplete<Int> { runs.withLock { $0 += 1 } }
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(runs.withLock { $0 } == 1)
      #expect(recorder.events.count == 2)
    }
  }

  @Test func afterCompletionOrCancel_subscriberIsReleased() {
    weak var completed: RecordingSubscriber<Int, any Error>?
    weak var cancelled: RecordingSubscriber<Int, any Error>?
    do {
      let first = RecordingSubscriber<Int, any Error>()
      let second = RecordingSubscriber<Int, any Error>(initialDemand: nil)
      completed = first
      cancelled = second
      counting(throwing: true).subscribe(first)
      counting().subscribe(second)
      second.cancel()
    }
    #expect(completed == nil)
    #expect(cancelled == nil)
  }

  @Test func subscription_describesItselfAsDeferredTryComplete() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    DeferredTryComplete<Int>().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredTryComplete")
  }

  @Test func conformanceKit_passesEveryRule() {
    let report = PublisherConformance(
      elements: 0,
      makePublisher: { DeferredTryComplete<Int> {} },
      makeFailingPublisher: { DeferredTryComplete<Int> { throw TestError() } }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.01", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }
}
