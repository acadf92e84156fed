import Dispatch
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct RecordingSubscriberTests {
  // MARK: With StreamCore publishers

  @Test func passthroughSubject_recordsValuesAndCompletion() {
    let subject = PassthroughSubject<Int, RecorderFailure>()
    let recorder = RecordingSubscriber<Int, RecorderFailure>()
    subject.subscribe(recorder)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(RecorderFailure()))
    #expect(
      recorder.events == [
        .subscription, .value(1), .value(2), .completion(.failure(RecorderFailure())),
      ]
    )
    #expect(recorder.values == [1, 2])
    #expect(recorder.completion == .failure(RecorderFailure()))
    #expect(recorder.subscriptionDescription == "PassthroughSubject")
    #expect(recorder.violations.isEmpty)
  }

  @Test func passthroughSubjectWithoutDemand_dropsValuesUntilRequested() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    subject.subscribe(recorder)
    subject.send(1)
    recorder.request(.max(1))
    subject.send(2)
    subject.send(3)
    #expect(recorder.values == [2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func just_recordsTheValueThenFinished() {
    let recorder = RecordingSubscriber<String, Never>()
    Just("hello").subscribe(recorder)
    #expect(recorder.events == [.subscription, .value("hello"), .completion(.finished)])
    #expect(recorder.subscriptionDescription == "Just")
    #expect(recorder.subscription == nil)
    #expect(recorder.violations.isEmpty)
  }

  @Test func sequencePublisherOneAtATime_receivesEveryValue() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)]
    )
    #expect(recorder.subscriptionDescription == "[1, 2, 3]")
    #expect(recorder.violations.isEmpty)
  }

  @Test func sequencePublisherWithLaterRequests_sendsFromInsideRequestWithoutViolations() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(2))
    #expect(recorder.values == [1, 2])
    recorder.request(.max(5))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandClosure_decidesTheDemandForEachValue() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1)) { value in
      value < 3 ? .max(1) : .none
    }
    [1, 2, 3, 4, 5].publisher.subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == nil)
  }

  // MARK: Demand and cancel with TestPublisher

  @Test func initialDemand_isRequestedOnSubscription() {
    let upstream = TestPublisher<Int, Never>()
    upstream.subscribe(RecordingSubscriber<Int, Never>(initialDemand: .max(3)))
    upstream.subscribe(RecordingSubscriber<Int, Never>())
    #expect(upstream.requests == [.demand(.max(3)), .demand(.unlimited)])
  }

  @Test func initialDemandNilOrNone_requestsNothing() {
    let upstream = TestPublisher<Int, Never>()
    upstream.subscribe(RecordingSubscriber<Int, Never>(initialDemand: nil))
    upstream.subscribe(RecordingSubscriber<Int, Never>(initialDemand: Subscribers.Demand.none))
    #expect(upstream.requests.isEmpty)
    #expect(upstream.subscriptionCount == 2)
  }

  @Test func request_forwardsTheDemand() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    upstream.subscribe(recorder)
    recorder.request(.max(2))
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.requests == [.demand(.max(2))])
    #expect(recorder.values == [1, 2])
  }

  @Test func requestBeforeSubscription_doesNothing() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    recorder.request(.max(1))
    let upstream = TestPublisher<Int, Never>()
    upstream.subscribe(recorder)
    #expect(upstream.requests.isEmpty)
  }

  @Test func cancel_cancelsOnceAndLetsGoOfTheSubscription() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.subscription == nil)
    #expect(recorder.subscriptionDescription == "TestPublisher")
  }

  @Test func cancelBeforeSubscription_cancelsTheSubscriptionWhenItArrives() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    recorder.cancel()
    upstream.subscribe(recorder)
    upstream.send(1)
    #expect(upstream.requests == [.cancel])
    #expect(recorder.events == [.subscription])
    #expect(recorder.violations.isEmpty)
  }

  @Test func completion_letsGoOfTheSubscription() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.subscribe(recorder)
    #expect(recorder.subscription != nil)
    upstream.send(completion: .finished)
    #expect(recorder.subscription == nil)
    recorder.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  // MARK: Violations

  @Test func valueBeyondDemand_isAViolation() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    recorder.receive(subscription: Subscriptions.empty)
    #expect(recorder.receive(1) == .none)
    _ = recorder.receive(2)
    #expect(recorder.values == [1, 2])
    #expect(recorder.violations == ["received 2 while demand was none"])
  }

  @Test func demandReturnedFromReceive_countsTowardsTheDemand() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    recorder.receive(subscription: Subscriptions.empty)
    for value in 1...5 {
      #expect(recorder.receive(value) == .max(1))
    }
    #expect(recorder.violations.isEmpty)
  }

  @Test func secondSubscription_isCancelledAndAViolation() {
    let first = TestPublisher<Int, Never>()
    let second = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    first.subscribe(recorder)
    second.subscribe(recorder)
    #expect(second.requests == [.cancel])
    #expect(first.requests == [.demand(.unlimited)])
    #expect(recorder.events == [.subscription, .subscription])
    #expect(recorder.violations == ["received a second subscription: TestPublisher"])
  }

  @Test func eventsBeforeTheSubscription_areViolations() {
    let recorder = RecordingSubscriber<Int, Never>()
    _ = recorder.receive(1)
    recorder.receive(completion: .finished)
    recorder.receive(subscription: Subscriptions.empty)
    #expect(
      recorder.violations == [
        "received 1 before a subscription",
        "received finished before a subscription",
        "received a subscription after completion",
      ]
    )
  }

  @Test func eventsAfterTheCompletion_areViolations() {
    let recorder = RecordingSubscriber<Int, Never>()
    recorder.receive(subscription: Subscriptions.empty)
    recorder.receive(completion: .finished)
    _ = recorder.receive(1)
    recorder.receive(completion: .finished)
    #expect(
      recorder.events == [.subscription, .completion(.finished), .value(1), .completion(.finished)]
    )
    #expect(recorder.completion == .finished)
    #expect(
      recorder.violations == [
        "received 1 after completion",
        "received finished after completion",
      ]
    )
  }

  @Test func eventsAfterCancel_areViolations() {
    let recorder = RecordingSubscriber<Int, Never>()
    recorder.receive(subscription: Subscriptions.empty)
    recorder.cancel()
    _ = recorder.receive(1)
    recorder.receive(completion: .finished)
    #expect(
      recorder.violations == [
        "received 1 after cancel",
        "received finished after cancel",
      ]
    )
  }

  // MARK: Threads

  @Test func concurrentSendsThroughASubject_areAllRecordedWithoutViolations() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    subject.subscribe(recorder)
    let threads = 8
    let perThread = 1_000
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for index in 0..<perThread {
        subject.send(thread * perThread + index)
      }
    }
    subject.send(completion: .finished)
    #expect(Set(recorder.values) == Set(0..<threads * perThread))
    #expect(recorder.values.count == threads * perThread)
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func concurrentRequests_addUpWithoutViolations() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    subject.subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 100) { _ in
      recorder.request(.max(1))
    }
    for value in 0..<150 {
      subject.send(value)
    }
    #expect(recorder.values == Array(0..<100))
    #expect(recorder.violations.isEmpty)
  }
}

/// An error for tests.
private struct RecorderFailure: Error, Equatable {}
