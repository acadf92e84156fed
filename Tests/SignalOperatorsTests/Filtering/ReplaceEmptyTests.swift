import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ReplaceEmptyTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.replaceEmpty(with: 0).subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  let upstream = TestPublisher<Int, TestError>()

  private var scenarios:
    PassThroughScenarios<
      Int, TestError, Publishers.ReplaceEmpty<TestPublisher<Int, TestError>>
    >
  {
    PassThroughScenarios(
      make: { $0.replaceEmpty(with: 0) },
      inputs: [1, 2, 3],
      expected: ["1", "2", "3"],
      error: TestError(code: 1),
      description: "ReplaceEmpty"
    )
  }

  @Test func upstreamFails_failurePassesThrough() { scenarios.upstreamFails() }

  @Test func values_passThroughAndFinish() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func upstream_isAskedForEverything_afterTheSubscribersOwnRequest() {
    // As Combine's (OpenCombine's `ReplaceEmptyTests.testDemand`): `.unlimited` once the
    // subscriber has its subscription, and each of the subscriber's requests passed on.
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2)), .demand(.unlimited)])
    recorder.request(.max(3))
    #expect(upstream.requests == [.demand(.max(2)), .demand(.unlimited), .demand(.max(3))])
  }

  @Test func values_reachTheSubscriber_whateverItRequested() {
    // As Combine's: the upstream was asked for everything, and its values are passed on.
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1, 2])
  }

  @Test func cancelInsideReceiveSubscription_asksTheUpstreamForNothing() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    let cancelling = AnySubscriber<Int, TestError>(
      receiveSubscription: { $0.cancel() },
      receiveValue: recorder.receive,
      receiveCompletion: recorder.receive
    )
    upstream.replaceEmpty(with: 42).subscribe(cancelling)
    #expect(upstream.requests == [.cancel])
  }
  @Test func cancel_beforeAndDuringValues_stopsDeliveryAndCancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(1)
    recorder.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(upstream.requests == [.demand(.unlimited), .demand(.unlimited), .cancel])

    let early = TestPublisher<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    early.replaceEmpty(with: 42).subscribe(second)
    second.cancel()
    early.send(completion: .finished)
    #expect(second.events == [.subscription])
    #expect(early.requests == [.demand(.unlimited), .demand(.unlimited), .cancel])
  }

  @Test func cancelAfterCompletion_changesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(completion: .finished)
    recorder.cancel()
    #expect(recorder.events == [.subscription, .value(42), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelWhileReceivingReplacement_noFinished() {
    let box = RecorderHolder<Int, TestError>()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      box.recorder?.cancel()
      return .none
    }
    box.recorder = recorder
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(42)])
    box.recorder = nil
  }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func emptyFinish_withDemand_publishesReplacementThenFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(42), .completion(.finished)])
  }

  @Test func emptyFinish_withoutDemand_holdsReplacementUntilRequested() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(42), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func heldReplacement_cancelled_isNeverSent() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(completion: .finished)
    weak let subscription: AnyObject? = recorder.subscription as AnyObject?
    recorder.cancel()
    #expect(recorder.events == [.subscription])
    #expect(subscription == nil)
  }

  @Test func emptyFailure_passesThroughWithoutReplacement() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.replaceEmpty(with: 42).subscribe(recorder)
    upstream.send(completion: .failure(TestError(code: 5)))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 5)))])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      TestPublisher<Int, Never>().replaceEmpty(with: 1).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func equatable_comparesUpstreamAndOutput() {
    #expect([1].publisher.replaceEmpty(with: 0) == [1].publisher.replaceEmpty(with: 0))
    #expect([1].publisher.replaceEmpty(with: 0) != [1].publisher.replaceEmpty(with: 9))
  }

  @Test func replaceEmpty_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: { [Int]().publisher.replaceEmpty(with: 7) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
  }

  @Test func replaceEmptyOfValues_breaksTheDemandRules_asCombinesDoes() {
    // Combine's `replaceEmpty` asks its upstream for `.unlimited` and passes every value on, so
    // with values it sends more than a subscriber requested: the kit's demand rule fails, by
    // design (OpenCombine's `ReplaceEmptyTests.testDemand`).
    let report = PublisherConformance(
      elements: 3,
      makePublisher: {
        [1, 2, 3].publisher.setFailureType(to: TestError.self).replaceEmpty(with: 7)
          .eraseToAnyPublisher()
      }
    )
    .run()
    #expect(report.failures.contains { $0.rule.id == "SC-1.01" })
  }

}
