import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ReceiveOnTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: ImmediateScheduler.shared).subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  let upstream = TestPublisher<Int, TestError>()
  let scheduler = TestScheduler()

  @Test func values_deliveredWhenSchedulerRuns() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription])
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(1), .value(2)])
  }

  @Test func eachValue_isScheduledAsAnActionOfItsOwn() {
    // As Combine's: one action per value, so other work scheduled in between runs in between.
    let log = LockedState<[String]>([])
    let values = upstream.receive(on: scheduler).sink { _ in
    } receiveValue: { value in
      log.withLock { $0.append("v\(value)") }
    }
    upstream.send(1)
    scheduler.schedule { log.withLock { $0.append("x") } }
    upstream.send(2)
    #expect(scheduler.pendingActionCount == 3)
    scheduler.advance()
    #expect(log.withLock { $0 } == ["v1", "x", "v2"])
    withExtendedLifetime(values) {}
  }

  @Test func concurrentQueue_deliversEveryValueInOrder_andTheCompletionLast() {
    // Each action delivers the oldest event, so a concurrent queue, which runs the actions in
    // any order and at once, still delivers in order, one at a time, the completion last.
    for _ in 0..<5 {
      let recorder = RecordingSubscriber<Int, Never>()
      let done = DispatchSemaphore(value: 0)
      let subscriber = AnySubscriber<Int, Never>(
        receiveSubscription: { recorder.receive(subscription: $0) },
        receiveValue: { recorder.receive($0) },
        receiveCompletion: {
          recorder.receive(completion: $0)
          done.signal()
        }
      )
      (1...100).publisher.receive(on: DispatchQueue.global()).subscribe(subscriber)
      #expect(done.wait(timeout: .now() + 30) == .success)
      #expect(recorder.values == Array(1...100))
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func subscription_handedDownstreamAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    #expect(recorder.events == [.subscription])
    #expect(recorder.subscriptionDescription == "ReceiveOn")
  }

  @Test func finishAfterValues_deliveredAfterThemOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func failureBeforeValues_deliveredOnScheduler() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription])
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func failureAfterValues_deliveredAfterThem() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    scheduler.advance()
    #expect(
      recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))]
    )
  }

  @Test func request_forwardedUpstreamAtOnce() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.receive(on: scheduler).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(2))
    #expect(upstream.requests == [.demand(.max(2))])
  }

  @Test func upstreamSendingBeyondDemand_isPassedOn() {
    // As Combine's: receive(on:) counts no demand; an upstream that breaks the contract reaches
    // the subscriber as it is.
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    OverfillPublisher<Never>(values: [1, 2, 3]).receive(on: scheduler).subscribe(recorder)
    scheduler.advance()
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .value(3), .completion(.finished)]
    )
  }

  @Test func demandMaxOne_oneValuePerRequest() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    upstream.send(3)
    scheduler.advance()
    #expect(recorder.values == [1, 3])
    #expect(upstream.violations == ["sent 2 while demand was none"])
  }

  @Test func demandFromReceive_requestedUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance()
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [1, 2])
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1)), .demand(.max(1))])
    #expect(upstream.violations.isEmpty)
  }

  @Test func cancelBeforeDrain_dropsQueuedValues() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    recorder.cancel()
    upstream.send(completion: .finished)
    scheduler.advance()
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancel_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    recorder.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    upstream.send(1)
    scheduler.advance()
    #expect(recorder.events == [.subscription])
  }

  @Test func requestsInsideReceiveSubscription_goStraightToTheUpstream() {
    // As Combine's: the operator is subscribed before it hands its subscription down.
    let subscriber = RequestThenMaybeCancel(cancel: false)
    upstream.receive(on: scheduler).subscribe(subscriber)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(2))])
  }

  @Test func cancelInsideReceiveSubscription_cancelsTheUpstreamAfterItsRequests() {
    let subscriber = RequestThenMaybeCancel(cancel: true)
    upstream.receive(on: scheduler).subscribe(subscriber)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(2)), .cancel])
  }

  @Test func requestInsideReceiveSubscription_onAnImmediateScheduler_deliversInsideIt() {
    // As Combine's: the first value arrives from inside the request, before
    // `receive(subscription:)` returns.
    var log: [String] = []
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: {
        $0.request(.max(1))
        log.append("subscribed")
      },
      receiveValue: {
        log.append("v\($0)")
        return .none
      },
      receiveCompletion: nil
    )
    (1...3).publisher.receive(on: ImmediateScheduler.shared).subscribe(subscriber)
    #expect(log == ["v1", "subscribed"])
  }

  @Test func requestFromInsideReceive_onAnImmediateScheduler_deliversAfterItReturns() {
    // Combine nests the next value inside the request; here it comes once `receive(_:)` has
    // returned, on the same thread, so the stack stays flat.
    var log: [String] = []
    var subscription: (any Subscription)?
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: {
        subscription = $0
        $0.request(.max(1))
      },
      receiveValue: {
        log.append("begin \($0)")
        subscription?.request(.max(1))
        log.append("end \($0)")
        return .none
      },
      receiveCompletion: { _ in log.append("finished") }
    )
    (1...3).publisher.receive(on: ImmediateScheduler.shared).subscribe(subscriber)
    #expect(log == ["begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3", "finished"])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    scheduler.advance()
    subscription?.cancel()
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  /// As Combine's (OpenCombine's `ReceiveOnTests.testStrongCaptureWhenSchedulingCompletion`):
  /// once the upstream's completion arrived, a cancel does nothing; what came before it and the
  /// completion are still delivered.
  @Test func cancel_whileCompletionIsScheduled_doesNothing() throws {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: scheduler).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    try #require(recorder.subscription).cancel()
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func cancelFromReceive_dropsWhatWasScheduledAfterIt() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.receive(on: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func requestFromReceive_forwardedAtOnce() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2)) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.receive(on: scheduler).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    scheduler.advance()
    #expect(recorder.values == [1, 2])
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1)), .demand(.max(1))])
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.receive(on: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(1)
      recorder.cancel()
    }
    scheduler.advance()
    #expect(inner == nil)
  }

  @Test func inner_releasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      upstream.receive(on: scheduler).subscribe(recorder)
      inner = recorder.subscription as AnyObject
      upstream.send(completion: .finished)
    }
    scheduler.advance()
    #expect(recorder.completion == .finished)
    #expect(inner == nil)
  }

  @Test func immediateScheduler_deliversSynchronously() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.receive(on: ImmediateScheduler.shared).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func serialQueue_deliversEveryValueInOrderOnTheQueue() {
    // One scheduled action per value, as in Combine: enough values to interleave with the
    // queue's other work, few enough to finish well within the wait on a loaded machine.
    let count = 20_000
    let queue = DispatchQueue(label: "ReceiveOnTests.serial")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let done = DispatchSemaphore(value: 0)
    let offQueue = LockedState(0)
    let values = LockedState([Int]())
    let cancellable = (0..<count).publisher
      .receive(on: queue)
      .sink(
        receiveCompletion: { _ in done.signal() },
        receiveValue: { value in
          if DispatchQueue.getSpecific(key: key) != 7 { offQueue.withLock { $0 += 1 } }
          values.withLock { $0.append(value) }
        }
      )
    // A bound on a hang, not a timing: the values are checked below, whatever the machine's speed.
    #expect(done.wait(timeout: .now() + 120) == .success)
    #expect(offQueue.withLock { $0 } == 0)
    let delivered = values.withLock { $0 }
    #expect(delivered.count == count)
    #expect(delivered == Array(0..<count))
    cancellable.cancel()
  }

  @Test func concurrentSends_nothingLostOrDuplicated() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    subject.receive(on: scheduler).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<1_000 { subject.send(side * 1_000 + value) }
    }
    scheduler.advance()
    #expect(recorder.values.sorted() == Array(0..<4_000))
    #expect(recorder.violations.isEmpty)
  }

  @Test func requestFromReceive_manyValuesWithoutRecursion() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<20_000).publisher.receive(on: ImmediateScheduler.shared).subscribe(recorder)
    #expect(recorder.values.count == 20_000)
    #expect(recorder.completion == .finished)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      PassthroughSubject<Int, Never>().receive(on: TestScheduler()).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func immediateScheduler_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.receive(on: ImmediateScheduler.shared) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func serialQueue_conforms() {
    let queue = DispatchQueue(label: "ReceiveOnTests.conformance")
    let conformance = PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]).receive(on: queue)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).receive(on: queue)
          .eraseToAnyPublisher()
      }
    )
    // Not SC-3.01: once the upstream's completion has arrived, a cancel does nothing, as in
    // Combine (`cancel_whileCompletionIsScheduled_doesNothing`), and whether this synchronous
    // upstream has completed when the cancel comes depends on the queue's timing.
    conformance.run(ConformanceRule.all.filter { $0.id != "SC-3.01" })
      .expectAllPassed(skipping: ["SC-1.05"])
  }

  /// `options` goes with every scheduled delivery.
  @Test func options_forwardedToTheScheduler() {
    let source = TestPublisher<Int, TestError>()
    let spy = SpyScheduler()
    let recorder = RecordingSubscriber<Int, TestError>()
    source.receive(on: spy, options: SpyOptions(tag: 5)).subscribe(recorder)
    source.send(1)
    spy.base.advance()
    source.send(completion: .finished)
    spy.base.advance()
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(spy.calls.count == 2)
    #expect(spy.calls.allSatisfy { $0.kind == .now && $0.options == SpyOptions(tag: 5) })
  }
}

/// Requests `.max(1)` and then `.max(2)` inside `receive(subscription:)`, and cancels there too
/// if asked.
private final class RequestThenMaybeCancel: Subscriber, Sendable {
  typealias Input = Int
  typealias Failure = TestError

  let cancel: Bool

  init(cancel: Bool) {
    self.cancel = cancel
  }

  func receive(subscription: any Subscription) {
    subscription.request(.max(1))
    subscription.request(.max(2))
    if cancel { subscription.cancel() }
  }

  func receive(_ input: Int) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<TestError>) {}
}
