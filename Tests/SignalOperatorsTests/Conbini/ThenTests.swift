import SignalOperators
import StreamConbini
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ThenTests {

  let upstream = TestPublisher<Int, TestError>()
  let child = TestPublisher<String, TestError>()
  let transforms = LockedState(0)

  private func chained(
    maxDemand: Subscribers.Demand = .unlimited
  ) -> Publishers.Then<TestPublisher<String, TestError>, TestPublisher<Int, TestError>> {
    upstream.then(maxDemand: maxDemand) { [transforms, child] in
      transforms.withLock { $0 += 1 }
      return child
    }
  }

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_describesItself_andMirrorsDownstreamThenTheChild() throws {
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(1))
    upstream.then { [child] in child }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Then")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "Then")
    let children = { Mirror(reflecting: subscription).children }
    #expect(
      children().map(\.label) == ["downstream", "upstreamSubscription", "childSubscription"]
    )
    #expect(children().first?.value as? RecordingSubscriber<String, TestError> === recorder)
    #expect(
      children().dropFirst().map { String(describing: $0.value) }
        == ["Optional(TestPublisher)", "nil"]
    )
    upstream.send(completion: .finished)
    #expect(
      children().dropFirst().map { String(describing: $0.value) }
        == ["nil", "Optional(TestPublisher)"]
    )
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "nil", "nil"])
  }

  @Test func upstreamFinishes_valuesDroppedAndChildForwarded() {
    let recorder = RecordingSubscriber<String, TestError>()
    chained().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription])
    #expect(transforms.withLock { $0 } == 0)
    upstream.send(completion: .finished)
    #expect(transforms.withLock { $0 } == 1)
    child.send("a")
    child.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value("a"), .completion(.finished)])
    #expect(child.requests == [.demand(.unlimited)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func upstreamFails_failureForwardedAndTransformNeverRuns() {
    let recorder = RecordingSubscriber<String, TestError>()
    chained().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    #expect(transforms.withLock { $0 } == 0)
    #expect(child.subscriptionCount == 0)
  }

  @Test func maxDemand_requestedOnceOnFirstRequestAndToppedUpPerValue() {
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: nil)
    chained(maxDemand: .max(2)).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    recorder.request(.max(3))
    #expect(upstream.requests == [.demand(.max(2))])
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(upstream.outstandingDemand == .max(2))
    #expect(upstream.violations.isEmpty)
  }

  @Test func storedDemand_isHandedToTheChildOnSubscription() {
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(1))
    chained(maxDemand: .max(1)).subscribe(recorder)
    recorder.request(.max(2))
    upstream.send(completion: .finished)
    #expect(child.requests == [.demand(.max(3))])
    recorder.request(.max(4))
    #expect(child.requests == [.demand(.max(3)), .demand(.max(4))])
  }

  @Test func noDemandBeforeTheSwitch_childIsSubscribedButAskedForNothing() {
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: nil)
    chained().subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(child.subscriptionCount == 1)
    #expect(child.requests.isEmpty)
    recorder.request(.max(1))
    #expect(child.requests == [.demand(.max(1))])
  }

  @Test func cancelDuringUpstream_cancelsUpstreamAndNeverMakesTheChild() {
    let recorder = RecordingSubscriber<String, TestError>()
    chained().subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    upstream.send(completion: .finished)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(transforms.withLock { $0 } == 0)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelDuringChild_cancelsTheChildOnly() {
    let recorder = RecordingSubscriber<String, TestError>()
    chained().subscribe(recorder)
    upstream.send(completion: .finished)
    recorder.cancel()
    child.send("late")
    #expect(child.requests == [.demand(.unlimited), .cancel])
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(recorder.events == [.subscription])
  }

  @Test func childFails_failureForwarded() {
    let recorder = RecordingSubscriber<String, TestError>()
    chained().subscribe(recorder)
    upstream.send(completion: .finished)
    child.send("a")
    child.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value("a"), .completion(.failure(TestError()))])
  }

  @Test func childFinishesSynchronously_deliveredInOrder() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    Empty<Int, TestError>().then { Record<Int, TestError>(output: [1, 2], completion: .finished) }
      .subscribe(
        recorder
      )
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func afterChildCompletes_downstreamIsReleased() {
    weak var weakRecorder: RecordingSubscriber<String, TestError>?
    do {
      let recorder = RecordingSubscriber<String, TestError>()
      weakRecorder = recorder
      chained().subscribe(recorder)
    }
    upstream.send(completion: .finished)
    #expect(weakRecorder != nil)
    child.send(completion: .finished)
    #expect(weakRecorder == nil)
  }

  @Test func afterCancel_downstreamIsReleased() {
    weak var weakRecorder: RecordingSubscriber<String, TestError>?
    do {
      let recorder = RecordingSubscriber<String, TestError>()
      weakRecorder = recorder
      chained().subscribe(recorder)
      upstream.send(completion: .finished)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func cancelFromInsideChildValue_noMoreValuesAndChildCancelled() {
    let me = LockedState<RecordingSubscriber<String, TestError>?>(nil)
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .unlimited) { _ in
      me.withLock { $0 }?.cancel()
      return .none
    }
    me.withLock { $0 = recorder }
    chained().subscribe(recorder)
    upstream.send(completion: .finished)
    child.send("a")
    child.send("b")
    #expect(recorder.values == ["a"])
    #expect(child.requests == [.demand(.unlimited), .cancel])
    me.withLock { $0 = nil }
  }

  @Test func zeroMaxDemand_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Empty<Int, Never>().then(maxDemand: .none) { Empty<Int, Never>() }
    }
    expectTrap(trap1, "Publishers.Then: maxDemand must be greater than zero")
  }

  @Test func conformance_emptyThenSequence() {
    PublisherConformance(elements: 2) { Empty<Int, Never>().then { [1, 2].publisher } }
      .run()
      .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func conformance_withMaxDemandAndFailure() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Int, TestError>(output: [7, 8], completion: .finished)
          .then(maxDemand: .max(1)) {
            Record<Int, TestError>(output: [1, 2, 3], completion: .finished)
          }
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [7], completion: .failure(TestError()))
          .then(maxDemand: .max(1)) {
            Record<Int, TestError>(output: [1, 2, 3], completion: .finished)
          }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  /// The everyday cycle `owner.token = upstream.then { [owner] in … }.sink(…)`: the transform holds
  /// the last reference to an owner whose deinit cancels the chain. A failure releases the
  /// transform; that used to happen inside the operator's lock, so the owner's cancel locked again
  /// ("Recursive call to lock Mutex"). The deinit here probes the lock from another thread
  /// instead of cancelling on its own, so the old code fails the test rather than trapping.
  @Test func upstreamFails_transformReleasedOutsideTheLock() {
    let recorder = RecordingSubscriber<String, TestError>()
    let subscription = LockedState<(any Subscription)?>(nil)
    let deinitFoundTheLockFree = LockedState<Bool?>(nil)
    do {
      let owner = LockProbeOwner {
        let free = lockProbeReturnsPromptly { subscription.withLock { $0 }?.cancel() }
        deinitFoundTheLockFree.withLock { $0 = free }
      }
      upstream.then { [owner, child] in
        _ = owner
        return child
      }
      .subscribe(recorder)
    }
    subscription.withLock { $0 = recorder.subscription }
    upstream.send(completion: .failure(TestError()))
    #expect(deinitFoundTheLockFree.withLock { $0 } == true)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
    subscription.withLock { $0 = nil }
  }

  /// `cancel()` releases the transform too; its owner's deinit must not run inside the lock.
  @Test func cancel_transformReleasedOutsideTheLock() {
    let recorder = RecordingSubscriber<String, TestError>()
    let subscription = LockedState<(any Subscription)?>(nil)
    let deinitFoundTheLockFree = LockedState<Bool?>(nil)
    do {
      let owner = LockProbeOwner {
        let free = lockProbeReturnsPromptly { subscription.withLock { $0 }?.request(.max(1)) }
        deinitFoundTheLockFree.withLock { $0 = free }
      }
      upstream.then { [owner, child] in
        _ = owner
        return child
      }
      .subscribe(recorder)
    }
    subscription.withLock { $0 = recorder.subscription }
    recorder.cancel()
    #expect(deinitFoundTheLockFree.withLock { $0 } == true)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    subscription.withLock { $0 = nil }
  }

  /// The crash itself, in a child process: the owner's deinit cancels the sink it keeps.
  @Test func ownerCyclePlusUpstreamFailure_doesNotTrap() async {
    await #expect(processExitsWith: .success) {
      final class Owner: @unchecked Sendable {
        var token: AnyCancellable?
      }
      let upstream = PassthroughSubject<Int, TestError>()
      do {
        let owner = Owner()
        owner.token = upstream.then { [owner] in
          _ = owner
          return Empty<String, TestError>()
        }
        .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
      }
      upstream.send(completion: .failure(TestError()))
    }
  }
}
