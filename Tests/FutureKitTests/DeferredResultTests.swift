import Dispatch
import FutureKit
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeferredResultTests {
  struct Boom: Error, Equatable {}

  let runs = LockedState(0)

  private func counting(_ result: Result<Int, Boom> = .success(7)) -> DeferredResult<Int, Boom> {
    DeferredResult { [runs] in
      runs.withLock { $0 += 1 }
      return result
    }
  }

  @Test func subscribeWithoutDemand_doesNotRunTheClosure() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func success_sendsTheValueThenFinished() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    counting().subscribe(recorder)
    recorder.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func failure_failsWithTheErrorAndNoValue() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1))
    counting(.failure(Boom())).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(Boom()))])
  }

  @Test func laterRequests_doNotRunTheClosureAgain() throws {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    counting().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.request(.max(2))
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
  }

  @Test func eachSubscription_runsTheClosureAgain() {
    let publisher = counting()
    let first = RecordingSubscriber<Int, Boom>()
    let second = RecordingSubscriber<Int, Boom>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(runs.withLock { $0 } == 2)
    #expect(first.values == [7])
    #expect(second.values == [7])
  }

  @Test func cancelBeforeTheFirstRequest_neverRunsTheClosure() throws {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    counting().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.cancel()
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_sendsNoCompletion() {
    let box = LockedState<RecordingSubscriber<Int, Boom>?>(nil)
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { _ in
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
      let publisher = DeferredResult<Int, Boom> {
        runs.withLock { $0 += 1 }
        return .success(1)
      }
      let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(runs.withLock { $0 } == 1)
      #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    }
  }

  @Test func afterCompletionOrCancel_subscriberIsReleased() {
    weak var completed: RecordingSubscriber<Int, Boom>?
    weak var cancelled: RecordingSubscriber<Int, Boom>?
    do {
      let first = RecordingSubscriber<Int, Boom>()
      let second = RecordingSubscriber<Int, Boom>(initialDemand: nil)
      completed = first
      cancelled = second
      counting(.failure(Boom())).subscribe(first)
      counting().subscribe(second)
      second.cancel()
    }
    #expect(completed == nil)
    #expect(cancelled == nil)
  }

  @Test func subscription_describesItselfAsDeferredResult() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredResult")
  }

  @Test func conformanceKit_passesEveryRule() {
    let report = PublisherConformance(
      elements: 1,
      makePublisher: { DeferredResult<Int, Boom> { .success(1) } },
      makeFailingPublisher: { DeferredResult<Int, Boom> { .failure(Boom()) } }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }
}
