import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamTesting
import Testing

private func isFinished(_ completion: Subscribers.Completion<any Error>?) -> Bool {
  if case .finished = completion { true } else { false }
}

private func failure(_ completion: Subscribers.Completion<any Error>?) -> (any Error)? {
  if case .failure(let error) = completion { error } else { nil }
}

@Suite(.timeLimit(.minutes(5))) struct DeferredTryValueTests {

  let runs = LockedState(0)

  private func counting(throwing: Bool = false) -> DeferredTryValue<Int> {
    DeferredTryValue { [runs] in
      runs.withLock { $0 += 1 }
      if throwing { throw TestError() }
      return 7
    }
  }

  @Test func subscribeWithoutDemand_doesNotRunTheClosure() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events.count == 1)
  }

  @Test func returningClosure_sendsTheValueThenFinished() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    counting().subscribe(recorder)
    recorder.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.values == [7])
    #expect(isFinished(recorder.completion))
    #expect(recorder.events.count == 3)
    #expect(recorder.violations.isEmpty)
  }

  @Test func throwingClosure_failsWithTheErrorAndNoValue() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(1))
    counting(throwing: true).subscribe(recorder)
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.values.isEmpty)
    #expect(failure(recorder.completion) as? TestError == TestError())
    #expect(recorder.events.count == 2)
  }

  @Test func eachSubscription_runsTheClosureAgain_onlyOnce() {
    let publisher = counting()
    let first = RecordingSubscriber<Int, any Error>(initialDemand: .max(1))
    let second = RecordingSubscriber<Int, any Error>(initialDemand: .max(1))
    publisher.subscribe(first)
    first.request(.max(1))
    publisher.subscribe(second)
    #expect(runs.withLock { $0 } == 2)
    #expect(first.values == [7])
    #expect(second.values == [7])
  }

  @Test func cancelBeforeTheFirstRequest_neverRunsTheClosure() throws {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    counting().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    recorder.cancel()
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events.count == 1)
  }

  @Test func concurrentFirstRequests_runTheClosureExactlyOnce() {
    for _ in 0..<100 {
      let runs = LockedState(0)
      let publisher = DeferredTryValue<Int> {
        runs.withLock { $0 += 1 }
        throw TestError()
      }
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(runs.withLock { $0 } == 1)
      #expect(recorder.events.count == 2)
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func afterFailure_subscriberIsReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, any Error>?
    do {
      let recorder = RecordingSubscriber<Int, any Error>()
      weakRecorder = recorder
      counting(throwing: true).subscribe(recorder)
    }
    #expect(weakRecorder == nil)
  }

  @Test func afterCancel_subscriberIsReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, any Error>?
    do {
      let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
      weakRecorder = recorder
      counting().subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
    #expect(runs.withLock { $0 } == 0)
  }

  @Test func subscription_describesItselfAsDeferredTryValue() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredTryValue")
  }

  @Test func conformanceKit_passesEveryRule() {
    let report = PublisherConformance(
      elements: 1,
      makePublisher: { DeferredTryValue { 1 } },
      makeFailingPublisher: { DeferredTryValue { throw TestError() } }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }
}
