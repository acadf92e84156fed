import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeferredPassthroughTests {

  /// A reference that doesn't keep its subject alive.
  final class WeakSubject: Sendable {
    weak let subject: PassthroughSubject<Int, TestError>?

    init(_ subject: PassthroughSubject<Int, TestError>) {
      self.subject = subject
    }
  }

  let runs = LockedState(0)
  /// The subjects the closure was handed, in order, kept for the test to send into.
  let subjects = LockedState<[PassthroughSubject<Int, TestError>]>([])

  /// A publisher whose closure keeps its subject and sends nothing.
  private func storing() -> DeferredPassthrough<Int, TestError> {
    DeferredPassthrough { [runs, subjects] subject in
      runs.withLock { $0 += 1 }
      subjects.withLock { $0.append(subject) }
    }
  }

  private func subject(_ index: Int = 0) -> PassthroughSubject<Int, TestError> {
    subjects.withLock { $0[index] }
  }

  @Test func subscribeWithoutDemand_doesNotRunTheClosure() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func firstRequest_runsTheClosureWithTheSubjectAlreadyWired() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    DeferredPassthrough<Int, TestError> { subject in
      subject.send(1)  // the demand arrived first, so this is delivered at once
      subject.send(completion: .finished)
    }
    .subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func laterRequests_goToTheSubjectWithoutRunningTheClosureAgain() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    recorder.request(.max(1))
    subject().send(1)
    subject().send(2)  // no demand left: dropped
    recorder.request(.max(2))
    subject().send(3)
    subject().send(4)
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.values == [1, 3, 4])
    #expect(recorder.violations.isEmpty)
  }

  @Test func valuesBeyondDemand_areDroppedButTheCompletionIsSent() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    DeferredPassthrough<Int, TestError> { subject in
      for value in 1...5 { subject.send(value) }
      subject.send(completion: .failure(TestError()))
    }
    .subscribe(recorder)
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .completion(.failure(TestError()))]
    )
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandReturnedFromReceive_letsMoreValuesThrough() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    DeferredPassthrough<Int, TestError> { subject in
      for value in 1...3 { subject.send(value) }
    }
    .subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
  }

  @Test func closureThatNeverCompletes_leavesTheStreamOpen() {
    let recorder = RecordingSubscriber<Int, TestError>()
    DeferredPassthrough<Int, TestError> { subject in subject.send(1) }.subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(recorder.completion == nil)
    #expect(recorder.subscription != nil)
    recorder.cancel()
  }

  @Test func completionSentLater_isDelivered() {
    let recorder = RecordingSubscriber<Int, TestError>()
    storing().subscribe(recorder)
    subject().send(1)
    subject().send(completion: .finished)
    subject().send(2)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func eachSubscription_getsItsOwnSubject() {
    let publisher = storing()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(runs.withLock { $0 } == 2)
    #expect(subject(0) !== subject(1))
    subject(0).send(1)
    subject(1).send(2)
    subject(1).send(completion: .finished)
    #expect(first.events == [.subscription, .value(1)])
    #expect(second.events == [.subscription, .value(2), .completion(.finished)])
    first.cancel()
  }

  @Test func cancelBeforeTheFirstRequest_neverRunsTheClosure() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.cancel()
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancel_detachesFromTheSubject() {
    let recorder = RecordingSubscriber<Int, TestError>()
    storing().subscribe(recorder)
    subject().send(1)
    recorder.cancel()
    subject().send(2)
    subject().send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelFromReceive_stopsFurtherValues() {
    let box = LockedState<RecordingSubscriber<Int, TestError>?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      box.withLock { $0 }?.cancel()
      return .none
    }
    box.withLock { $0 = recorder }
    DeferredPassthrough<Int, TestError> { subject in
      subject.send(1)
      subject.send(2)
      subject.send(completion: .finished)
    }
    .subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1)])
    box.withLock { $0 = nil }
  }

  @Test func concurrentFirstRequests_runTheClosureExactlyOnceAndAddUpTheDemand() {
    for _ in 0..<100 {
      let runs = LockedState(0)
      let subjects = LockedState<[PassthroughSubject<Int, TestError>]>([])
      let publisher = DeferredPassthrough<Int, TestError> { subject in
        runs.withLock { $0 += 1 }
        subjects.withLock { $0.append(subject) }
      }
      let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(runs.withLock { $0 } == 1)
      let subject = subjects.withLock { $0[0] }
      for value in 0..<6 { subject.send(value) }
      #expect(recorder.values == [0, 1, 2, 3])
      #expect(recorder.violations.isEmpty)
      recorder.cancel()
    }
  }

  @Test func sendsFromAnotherThread_areDeliveredWithinDemand() {
    let group = DispatchGroup()
    let queue = DispatchQueue(label: "DeferredPassthroughTests.sender")
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(100))
    DeferredPassthrough<Int, TestError> { subject in
      queue.async(group: group) {
        for value in 0..<150 { subject.send(value) }
        subject.send(completion: .finished)
      }
    }
    .subscribe(recorder)
    #expect(group.wait(timeout: .now() + 60) == .success)
    #expect(recorder.values == Array(0..<100))
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func afterCompletion_subscriberAndSubscriptionAreReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      storing().subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      subject().send(completion: .finished)
    }
    #expect(weakRecorder == nil)
    #expect(weakSubscription == nil)
  }

  @Test func afterCancel_subscriberAndSubscriptionAreReleasedWhileTheSubjectIsKept() {
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      storing().subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
    #expect(weakSubscription == nil)
    #expect(subjects.withLock { $0.count } == 1)
  }

  @Test func afterTheClosureRuns_theSubscriptionLetsGoOfTheSubject() {
    let seen = LockedState<WeakSubject?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    DeferredPassthrough<Int, TestError> { subject in seen.withLock { $0 = WeakSubject(subject) } }
      .subscribe(recorder)
    recorder.request(.max(1))
    #expect(seen.withLock { $0 } != nil)
    #expect(seen.withLock { $0?.subject } == nil)
    #expect(recorder.completion == nil)  // nothing can complete it now
    recorder.cancel()
  }

  @Test func subscription_describesItselfAsDeferredPassthrough() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredPassthrough")
  }

  // A passthrough subject drops what it has no demand for, so the kit's "one value per request"
  // rules hold only for one value; these runs send at most one, synchronously or from a queue.

  @Test func conformanceKit_synchronousClosure_passesEveryRule() {
    let report = PublisherConformance(
      elements: 1,
      makePublisher: {
        DeferredPassthrough<Int, TestError> { subject in
          subject.send(1)
          subject.send(completion: .finished)
        }
      },
      makeFailingPublisher: {
        DeferredPassthrough<Int, TestError> { subject in
          subject.send(completion: .failure(TestError()))
        }
      }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }

  @Test func conformanceKit_closureSendingFromAQueue_passesEveryRule() {
    let queue = DispatchQueue(label: "DeferredPassthroughTests.conformance")
    let report = PublisherConformance(
      elements: 1,
      timeout: .seconds(5),
      makePublisher: {
        DeferredPassthrough<Int, TestError> { subject in
          queue.async {
            subject.send(1)
            subject.send(completion: .finished)
          }
        }
      },
      makeFailingPublisher: {
        DeferredPassthrough<Int, TestError> { subject in
          queue.async { subject.send(completion: .failure(TestError())) }
        }
      }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .releasedAfterCompletion) == .passed)
  }

  @Test func conformanceKit_completionOnly_passesEveryRule() {
    PublisherConformance(
      elements: 0,
      makePublisher: {
        DeferredPassthrough<Int, TestError> { subject in subject.send(completion: .finished) }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
  }
}
