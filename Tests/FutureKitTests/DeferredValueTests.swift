import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeferredValueTests {
  let runs = LockedState(0)

  private func counting(_ value: Int = 7) -> DeferredValue<Int, Never> {
    DeferredValue { [runs] in
      runs.withLock { $0 += 1 }
      return value
    }
  }

  @Test func subscribeWithoutDemand_doesNotRunTheClosure() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func firstRequestOfOne_runsTheClosureAndSendsTheValueThenFinished() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    counting().subscribe(recorder)
    recorder.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandFromReceiveSubscription_runsTheClosureInsideIt() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .unlimited)
    counting(3).subscribe(recorder)
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func laterRequests_doNotRunTheClosureAgain() throws {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    counting().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.request(.max(1))
    subscription.request(.max(1))
    subscription.request(.unlimited)
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
  }

  @Test func eachSubscription_runsTheClosureAgain() {
    let publisher = counting()
    let first = RecordingSubscriber<Int, Never>()
    let second = RecordingSubscriber<Int, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(runs.withLock { $0 } == 2)
    #expect(first.values == [7])
    #expect(second.values == [7])
  }

  @Test func cancelBeforeTheFirstRequest_neverRunsTheClosure() throws {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    counting().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    recorder.cancel()
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_sendsNoCompletion() {
    let box = LockedState<RecordingSubscriber<Int, Never>?>(nil)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1)) { _ in
      box.withLock { $0 }?.cancel()
      return .none
    }
    box.withLock { $0 = recorder }
    counting().subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(7)])
    #expect(recorder.violations.isEmpty)
    box.withLock { $0 = nil }
  }

  @Test func cancelFromInsideTheClosure_sendsNothing() {
    let box = LockedState<RecordingSubscriber<Int, Never>?>(nil)
    let publisher = DeferredValue<Int, Never> {
      box.withLock { $0 }?.cancel()
      return 1
    }
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    box.withLock { $0 = recorder }
    publisher.subscribe(recorder)
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription])
    #expect(recorder.violations.isEmpty)
    box.withLock { $0 = nil }
  }

  @Test func requestFromInsideTheClosure_doesNotRunItAgain() throws {
    let box = LockedState<(any Subscription)?>(nil)
    let publisher = DeferredValue<Int, Never> { [runs] in
      runs.withLock { $0 += 1 }
      box.withLock { $0 }?.request(.max(1))
      return 1
    }
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    publisher.subscribe(recorder)
    box.withLock { $0 = recorder.subscription }
    recorder.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    box.withLock { $0 = nil }
  }

  @Test func concurrentFirstRequests_runTheClosureExactlyOnce() {
    for _ in 0..<200 {
      let runs = LockedState(0)
      let publisher = DeferredValue<Int, Never> {
        runs.withLock { $0 += 1 }
        return 7
      }
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in
        recorder.request(.max(1))  // counts the demand, then requests it
      }
      #expect(runs.withLock { $0 } == 1)
      #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func concurrentRequestAndCancel_runTheClosureAtMostOnceAndNeverAfterTheCancel() throws {
    for _ in 0..<200 {
      let runs = LockedState(0)
      let publisher = DeferredValue<Int, Never> {
        runs.withLock { $0 += 1 }
        return 7
      }
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      publisher.subscribe(recorder)
      let subscription = try #require(recorder.subscription)
      let shared = SendableByContract(subscription)
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 { shared.wrapped.request(.max(1)) } else { shared.wrapped.cancel() }
      }
      subscription.request(.max(1))
      #expect(runs.withLock { $0 } <= 1)
      #expect(recorder.values.count <= 1)
      #expect(recorder.events.count <= 3)
    }
  }

  @Test func afterCompletion_subscriberAndSubscriptionAreReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, Never>?
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      weakRecorder = recorder
      counting().subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      recorder.request(.max(1))
      #expect(recorder.completion == .finished)
    }
    #expect(weakRecorder == nil)
    #expect(weakSubscription == nil)
  }

  @Test func afterCancel_subscriberAndClosureAreReleased() throws {
    final class Captured: Sendable {}
    weak var weakRecorder: RecordingSubscriber<Int, Never>?
    weak var weakCaptured: Captured?
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    weakRecorder = recorder
    let subscription: any Subscription
    do {
      let captured = Captured()
      weakCaptured = captured
      DeferredValue<Int, Never> {
        _ = captured
        return 1
      }
      .subscribe(recorder)
      subscription = try #require(recorder.subscription)
    }
    // The subscription keeps the closure until it runs or is cancelled.
    #expect(weakCaptured != nil)
    subscription.cancel()
    #expect(weakCaptured == nil)
    #expect(recorder.subscription != nil)  // the recorder itself didn't cancel
    recorder.cancel()
    _ = consume recorder
    #expect(weakRecorder == nil)
  }

  @Test func subscription_describesItselfAsDeferredValue() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    counting().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredValue")
    #expect(String(describing: recorder.subscription as Any).contains("DeferredValue"))
  }

  @Test func failureParameter_setsTheFailureType() {
    let publisher = DeferredValue(failure: TestError.self) { 1 }
    let recorder = RecordingSubscriber<Int, TestError>()
    publisher.subscribe(recorder)
    #expect(recorder.values == [1])
  }

  @Test func conformanceKit_passesEveryRule() {
    let report = PublisherConformance(elements: 1) { DeferredValue<Int, Never> { 1 } }.run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
    #expect(report.outcome(of: .cancelFromReceive) == .passed)
    #expect(report.outcome(of: .concurrentRequests) == .passed)
  }
}
