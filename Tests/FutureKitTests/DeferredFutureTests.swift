import Dispatch
import FutureKit
import StreamCombineExt
import StreamConbini
import StreamCore
import StreamPropagate
import StreamSnail
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeferredFutureTests {

  typealias Promise = DeferredFuture<Int, TestError>.Promise

  let runs = LockedState(0)
  /// Promises the closure handed out, in order, for the test to call later.
  let promises = LockedState<[Promise]>([])

  /// A publisher whose closure keeps its promise for the test to call.
  private func storing() -> DeferredFuture<Int, TestError> {
    DeferredFuture { [runs, promises] promise in
      runs.withLock { $0 += 1 }
      promises.withLock { $0.append(promise) }
    }
  }

  private func promise(_ index: Int = 0) -> Promise {
    promises.withLock { $0[index] }
  }

  @Test func subscribeWithoutDemand_doesNotRunTheClosure() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    #expect(runs.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func promiseCalledInsideTheClosure_sendsTheValueThenFinished() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    DeferredFuture<Int, TestError> { $0(.success(5)) }.subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(5), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func promiseCalledLater_deliversWithinThatCall() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    storing().subscribe(recorder)
    #expect(runs.withLock { $0 } == 1)
    #expect(recorder.events == [.subscription])
    promise()(.success(3))
    #expect(recorder.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func failure_failsWithTheErrorAndNoValue() {
    let recorder = RecordingSubscriber<Int, TestError>()
    storing().subscribe(recorder)
    promise()(.failure(TestError(code: 4)))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 4)))])
  }

  @Test func secondPromiseCall_isIgnored() {
    let recorder = RecordingSubscriber<Int, TestError>()
    storing().subscribe(recorder)
    promise()(.success(1))
    promise()(.success(2))
    promise()(.failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func secondPromiseCallAfterAFailure_isIgnored() {
    let recorder = RecordingSubscriber<Int, TestError>()
    DeferredFuture<Int, TestError> { promise in
      promise(.failure(TestError(code: 1)))
      promise(.success(2))
    }
    .subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 1)))])
  }

  @Test func promiseCallFromInsideReceive_isIgnored() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { [promises] _ in
      promises.withLock { $0[0] }(.success(99))
      return .max(1)
    }
    storing().subscribe(recorder)
    promise()(.success(1))
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func lateResultAfterCancel_isDropped() {
    let recorder = RecordingSubscriber<Int, TestError>()
    storing().subscribe(recorder)
    recorder.cancel()
    promise()(.success(1))
    promise()(.failure(TestError()))
    #expect(recorder.events == [.subscription])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelFromReceive_sendsNoCompletion() {
    let box = LockedState<RecordingSubscriber<Int, TestError>?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      box.withLock { $0 }?.cancel()
      return .none
    }
    box.withLock { $0 = recorder }
    storing().subscribe(recorder)
    promise()(.success(1))
    #expect(recorder.events == [.subscription, .value(1)])
    box.withLock { $0 = nil }
  }

  @Test func cancelBeforeTheFirstRequest_neverRunsTheClosure() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.cancel()
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 0)
  }

  @Test func laterRequests_doNotRunTheClosureAgain() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.request(.max(1))
    subscription.request(.max(1))
    promise()(.success(1))
    subscription.request(.max(1))
    #expect(runs.withLock { $0 } == 1)
  }

  @Test func eachSubscription_runsTheClosureWithItsOwnPromise() {
    let publisher = storing()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(runs.withLock { $0 } == 2)
    promise(1)(.success(2))
    promise(0)(.success(1))
    #expect(first.values == [1])
    #expect(second.values == [2])
  }

  @Test func promiseCalledFromAnotherThread_deliversOnThatThread() {
    let group = DispatchGroup()
    let resolvedOn = LockedState<ThreadID?>(nil)
    let deliveredOn = LockedState<ThreadID?>(nil)
    let queue = DispatchQueue(label: "DeferredFutureTests.resolver")
    let publisher = DeferredFuture<Int, TestError> { promise in
      queue.async(group: group) {
        resolvedOn.withLock { $0 = .current }
        promise(.success(8))
      }
    }
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      deliveredOn.withLock { $0 = .current }
      return .none
    }
    publisher.subscribe(recorder)
    #expect(group.wait(timeout: .now() + 60) == .success)
    #expect(recorder.events == [.subscription, .value(8), .completion(.finished)])
    #expect(deliveredOn.withLock { $0 } != nil)
    #expect(deliveredOn.withLock { $0 } == resolvedOn.withLock { $0 })
  }

  @Test func twoThreadsResolvingAtOnce_exactlyOneWins() throws {
    for _ in 0..<200 {
      let promises = LockedState<[Promise]>([])
      let recorder = RecordingSubscriber<Int, TestError>()
      DeferredFuture<Int, TestError> { promise in promises.withLock { $0.append(promise) } }
        .subscribe(recorder)
      let promise = try #require(promises.withLock { $0.first })
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        promise(.success(index))
      }
      #expect(recorder.values.count == 1)
      #expect(recorder.completion == .finished)
      #expect(recorder.events.count == 3)
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func resolveRacingCancel_deliversAtMostOneValueAndNothingAfterwards() throws {
    for _ in 0..<200 {
      let promises = LockedState<[Promise]>([])
      let recorder = RecordingSubscriber<Int, TestError>()
      DeferredFuture<Int, TestError> { promise in promises.withLock { $0.append(promise) } }
        .subscribe(recorder)
      let promise = try #require(promises.withLock { $0.first })
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 { promise(.success(1)) } else { recorder.cancel() }
      }
      let events = recorder.events.count
      promise(.success(2))
      #expect(recorder.values.count <= 1)
      #expect(recorder.events.count == events)
      #expect(!recorder.values.contains(2))
    }
  }

  @Test func concurrentFirstRequests_runTheClosureExactlyOnce() {
    for _ in 0..<100 {
      let runs = LockedState(0)
      let publisher = DeferredFuture<Int, TestError> { promise in
        runs.withLock { $0 += 1 }
        promise(.success(1))
      }
      let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
      publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(runs.withLock { $0 } == 1)
      #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    }
  }

  @Test func afterCompletion_subscriberAndSubscriptionAreReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      DeferredFuture<Int, TestError> { $0(.success(1)) }.subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      #expect(recorder.completion == .finished)
    }
    #expect(weakRecorder == nil)
    #expect(weakSubscription == nil)
  }

  @Test func afterCancel_subscriberIsReleasedEvenWhileThePromiseIsKept() {
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      storing().subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
    promise()(.success(1))  // goes nowhere
    _ = promises.withLock { $0.removeAllReturning() }  // released after the lock
  }

  @Test func unresolvedPromiseDropped_releasesTheSubscription() {
    weak var weakSubscription: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    storing().subscribe(recorder)
    weakSubscription = recorder.subscription as AnyObject?
    recorder.cancel()
    #expect(weakSubscription != nil)  // the kept promise holds it
    _ = promises.withLock { $0.removeAllReturning() }  // released after the lock
    #expect(weakSubscription == nil)
  }

  @Test func subscriberThatDoesNotKeepItsSubscription_stillReceivesALateResult() {
    let received = LockedState<[Int]>([])
    let finished = LockedState(false)
    storing()
      .subscribe(
        AnySubscriber<Int, TestError>(
          receiveSubscription: { $0.request(.unlimited) },  // and lets go of it
          receiveValue: { value in
            received.withLock { $0.append(value) }
            return .none
          },
          receiveCompletion: { _ in finished.withLock { $0 = true } }
        )
      )
    promise()(.success(6))
    #expect(received.withLock { $0 } == [6])
    #expect(finished.withLock { $0 })
  }

  @Test func subscription_describesItselfAsDeferredFuture() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    storing().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DeferredFuture")
  }

  @Test func conformanceKit_synchronousPromise_passesEveryRule() {
    let report = PublisherConformance(
      elements: 1,
      makePublisher: { DeferredFuture<Int, TestError> { $0(.success(1)) } },
      makeFailingPublisher: { DeferredFuture<Int, TestError> { $0(.failure(TestError())) } }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }

  @Test func conformanceKit_promiseCalledOnAnotherThread_passesEveryRule() {
    let queue = DispatchQueue(label: "DeferredFutureTests.conformance")
    let report = PublisherConformance(
      elements: 1,
      timeout: .seconds(5),
      makePublisher: {
        DeferredFuture<Int, TestError> { promise in queue.async { promise(.success(1)) } }
      },
      makeFailingPublisher: {
        DeferredFuture<Int, TestError> { promise in queue.async { promise(.failure(TestError())) } }
      }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .releasedAfterCompletion) == .passed)
  }
}

extension Array {
  /// Empties the array and returns what it held, to be released by the caller.
  fileprivate mutating func removeAllReturning() -> Self {
    defer { self = [] }
    return self
  }
}
