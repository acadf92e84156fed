import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ReplaceErrorTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.replaceError(with: 0).subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  let upstream = TestPublisher<Int, TestError>()

  private var scenarios:
    PassThroughScenarios<
      Int, TestError, Publishers.ReplaceError<TestPublisher<Int, TestError>>
    >
  {
    PassThroughScenarios(
      make: { $0.replaceError(with: 0) },
      inputs: [1, 2, 3],
      expected: ["1", "2", "3"],
      error: nil,
      description: "ReplaceError"
    )
  }

  @Test func values_passThrough() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_stopsDeliveryAndCancelsUpstream() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func failure_withDemand_publishesReplacementThenFinishes_beforeAndAfterValues() {
    for sendValues in [false, true] {
      let upstream = TestPublisher<Int, TestError>()
      let recorder = RecordingSubscriber<Int, Never>()
      upstream.replaceError(with: 42).subscribe(recorder)
      if sendValues { upstream.send(1) }
      upstream.send(completion: .failure(TestError()))
      let values: [RecordingSubscriber<Int, Never>.Event] = sendValues ? [.value(1)] : []
      #expect(recorder.events == [.subscription] + values + [.value(42), .completion(.finished)])
    }
  }

  @Test func failure_withoutDemand_holdsReplacementUntilRequested() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    upstream.replaceError(with: 42).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1)])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1), .value(42), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func heldReplacement_cancelled_isNeverSent() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    upstream.replaceError(with: 42).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    recorder.cancel()
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelWhileReceivingReplacement_noFinished() {
    let box = RecorderHolder<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      box.recorder?.cancel()
      return .none
    }
    box.recorder = recorder
    upstream.replaceError(with: 42).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(42)])
    box.recorder = nil
  }

  @Test func demand_isForwarded() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.replaceError(with: 42).subscribe(recorder)
    recorder.request(.max(3))
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(3))])
  }

  @Test func demandFromReceive_countsTowardReplacement() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.replaceError(with: 42).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .value(42), .completion(.finished)])
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      TestPublisher<Int, TestError>().replaceError(with: 1).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func valueBeyondDemand_traps() async {
    // Oracle (misbehaving upstream): `replaceError - V0.1`; Combine traps too (its demand
    // would go negative).
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      IgnoresDemandPublisher(value: 1).replaceError(with: 0)
        .subscribe(RecordingSubscriber<Int, Never>(initialDemand: nil))
    }
    expectTrap(
      trap,
      "ReplaceError: the upstream sent a value beyond the subscriber's demand (a Subscriber contract violation)"
    )
  }

  @Test func replacement_isDeliveredOnce_whateverIsRequestedAfterIt() throws {
    // Oracle: `replaceError - e0.2 r0.2 r0.2` and `- e0.1 i0.1 r0.u`. OpenCombine delivers
    // the replacement and `.finished` again on each later request (INTENDED.md, I13).
    let box = RecorderHolder<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      box.recorder?.request(.max(1))
      return .none
    }
    box.recorder = recorder
    upstream.replaceError(with: 42).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(completion: .failure(TestError()))
    recorder.request(.unlimited)
    subscription.request(.max(2))  // after the end: the recorder has let go of it
    #expect(recorder.events == [.subscription, .value(42), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
    box.recorder = nil
  }

  @Test func concurrentFailureAndRequest_deliverReplacementOnce() {
    for _ in 0..<200 {
      let upstream = TestPublisher<Int, TestError>()
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      upstream.replaceError(with: 42).subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          upstream.send(completion: .failure(TestError()))
        } else {
          recorder.request(.max(1))
        }
      }
      #expect(recorder.events == [.subscription, .value(42), .completion(.finished)])
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func equatable_comparesUpstreamAndOutput() {
    #expect([1].publisher.replaceError(with: 0) == [1].publisher.replaceError(with: 0))
    #expect([1].publisher.replaceError(with: 0) != [1].publisher.replaceError(with: 9))
  }

  @Test func replaceError_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Fail<Int, TestError>(error: TestError()).replaceError(with: 7)
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        (0..<1_000_000).map { $0 }.publisher.setFailureType(to: TestError.self).replaceError(
          with: 7
        )
        .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04", "SC-3.02"])
  }

  @Test func replaceErrorOfValues_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.replaceError(with: 7) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}

/// A publisher that breaks the contract: it sends `value` right after the subscription,
/// whatever the subscriber requested.
private struct IgnoresDemandPublisher: Publisher {
  typealias Output = Int
  typealias Failure = TestError

  let value: Int

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
    subscriber.receive(subscription: SubscriptionProbe())
    _ = subscriber.receive(value)
  }
}
