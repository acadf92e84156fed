import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct HandleEventsTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.handleEvents().subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  let upstream = TestPublisher<Int, TestError>()
  let log = LockedState<[String]>([])

  private func handled() -> Publishers.HandleEvents<TestPublisher<Int, TestError>> {
    upstream.handleEvents(
      receiveSubscription: { [log] subscription in
        log.withLock { $0.append("subscription \(subscription)") }
      },
      receiveOutput: { [log] value in log.withLock { $0.append("value \(value)") } },
      receiveCompletion: { [log] completion in
        log.withLock { $0.append(completion == .finished ? "finished" : "failed") }
      },
      receiveCancel: { [log] in log.withLock { $0.append("cancel") } },
      receiveRequest: { [log] demand in log.withLock { $0.append("request \(demand)") } }
    )
  }

  private var entries: [String] { log.withLock { $0 } }

  @Test func basicPath_closuresRunAndEventsPassThrough() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(
      entries == [
        "subscription TestPublisher", "request unlimited", "value 1", "value 2", "finished",
      ]
    )
    #expect(recorder.violations.isEmpty)
  }

  @Test func closures_runBeforeTheEventGoesOn() {
    let order = LockedState<[String]>([])
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { value in
      order.withLock { $0.append("downstream \(value)") }
      return .none
    }
    upstream.handleEvents(
      receiveSubscription: { _ in order.withLock { $0.append("subscription") } },
      receiveOutput: { value in order.withLock { $0.append("output \(value)") } },
      receiveCompletion: { [recorder] _ in
        order.withLock { $0.append("completion, downstream has \(recorder.completion != nil)") }
      },
      receiveRequest: { [upstream] _ in
        order.withLock { $0.append("request, upstream has \(upstream.requests.count)") }
      }
    )
    .subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(
      order.withLock { $0 } == [
        "subscription", "request, upstream has 0", "output 1", "downstream 1",
        "completion, downstream has false",
      ]
    )
  }

  @Test func demandNone_nothingDeliveredUntilRequested() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    handled().subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    upstream.send(2)
    #expect(recorder.values == [2])
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func demandFromReceive_isReturnedUpstreamAndReported() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    handled().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1, 2])
    #expect(upstream.requests == [.demand(.max(1))])
    #expect(upstream.outstandingDemand == .max(1))
    #expect(
      entries.filter { $0.hasPrefix("request") } == Array(repeating: "request max(1)", count: 3)
    )
    #expect(upstream.violations.isEmpty)
  }

  @Test func failureAfterValues_passesThrough() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
    #expect(entries.last == "failed")
  }

  @Test func failureBeforeValues_passesThrough() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func cancel_runsReceiveCancelOnceAndCancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let subscription = LockedState<(any Subscription)?>(nil)
    handled().subscribe(recorder)
    subscription.withLock { $0 = recorder.subscription }
    upstream.send(1)
    recorder.cancel()
    subscription.withLock { $0 }?.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.values == [1])
    #expect(entries.filter { $0 == "cancel" }.count == 1)
    #expect(!entries.contains("value 2"))
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    let inner = LockedState<(any Subscription)?>(nil)
    handled().subscribe(recorder)
    inner.withLock { $0 = recorder.subscription }
    upstream.send(completion: .finished)
    inner.withLock { $0 }?.cancel()
    #expect(!entries.contains("cancel"))
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = LockedState<(any Subscription)?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.withLock { $0 }?.cancel()
      return .none
    }
    handled().subscribe(recorder)
    holder.withLock { $0 = recorder.subscription }
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func requestFromReceive_goesUpstream() {
    let holder = LockedState<(any Subscription)?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.withLock { $0 }?.request(.max(2))
      return .none
    }
    handled().subscribe(recorder)
    holder.withLock { $0 = recorder.subscription }
    upstream.send(1)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(2))])
    #expect(upstream.outstandingDemand == .max(2))
  }

  @Test func subscription_describedAsHandleEvents() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "HandleEvents")
  }

  @Test func innerAndClosures_releasedAfterCancel() {
    weak var weakInner: AnyObject?
    weak var weakToken: Token?
    do {
      let token = Token()
      weakToken = token
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.handleEvents(receiveOutput: { _ in _ = token }).subscribe(recorder)
      weakInner = recorder.subscription as AnyObject?
      recorder.cancel()
    }
    #expect(weakInner == nil)
    #expect(weakToken == nil)
  }

  @Test func innerAndClosures_releasedAfterCompletion() {
    weak var weakInner: AnyObject?
    weak var weakToken: Token?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      let token = Token()
      weakToken = token
      upstream.handleEvents(receiveOutput: { _ in _ = token }).subscribe(recorder)
      weakInner = recorder.subscription as AnyObject?
    }
    upstream.send(completion: .finished)
    #expect(weakInner == nil)
    #expect(weakToken == nil)
  }

  @Test func requestNone_isPassedUpstream_andSeenByTheClosure_asCombineDoes() {
    let upstream = TestPublisher<Int, Never>()
    var seen: [Subscribers.Demand] = []
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    upstream.handleEvents(receiveRequest: { seen.append($0) }).subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(seen == [.none])
    #expect(upstream.requests == [.demand(.none)])
  }

  @Test func handleEvents_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.handleEvents(receiveOutput: { _ in }) },
      makeLongPublisher: { Array(0..<1_000_000).publisher.handleEvents() }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func handleEventsFailing_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .finished).handleEvents()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError())).handleEvents()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}

private final class Token: Sendable {}
