import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MulticastTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, TestError>()
    multicast().subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  @Test func subscribersExtraDemand_isRequestedFromTheSubjectsSubscription() {
    // As Combine's (OpenCombine's `MulticastTests.testInnerSubscriber`): the subscriber attached
    // to the subject returns no demand; what the downstream returns is requested instead.
    let subject = DirectSubject()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    Empty<Int, Never>(completeImmediately: false).multicast(subject: subject).subscribe(recorder)
    subject.send(1)
    #expect(recorder.values == [1])
    #expect(subject.returned == [.none])
    #expect(subject.probe.requested == [.max(1), .max(2)])
  }

  let upstream = TestPublisher<Int, TestError>()

  private func multicast()
    -> Publishers.Multicast<TestPublisher<Int, TestError>, PassthroughSubject<Int, TestError>>
  {
    upstream.multicast { PassthroughSubject<Int, TestError>() }
  }

  /// As Combine's (OpenCombine's `Multicast` makes it lazily): the subject is made on first
  /// use, once, and the first subscriber and `connect()` share it.
  @Test func subject_isMadeOnFirstUse_once() {
    let made = LockedState(0)
    let connectable = upstream.multicast { () -> PassthroughSubject<Int, TestError> in
      made.withLock { $0 += 1 }
      return PassthroughSubject()
    }
    #expect(made.withLock { $0 } == 0)
    let recorder = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(recorder)
    #expect(made.withLock { $0 } == 1)
    let connection = connectable.connect()
    upstream.send(1)
    #expect(recorder.values == [1])
    #expect(made.withLock { $0 } == 1)
    connection.cancel()
  }

  @Test func nothingFlows_untilConnected() {
    let connectable = multicast()
    let recorder = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(recorder)
    #expect(upstream.subscriptionCount == 0)
    let connection = connectable.connect()
    #expect(upstream.subscriptionCount == 1)
    #expect(upstream.requests == [.demand(.unlimited)])
    upstream.send(1)
    #expect(recorder.values == [1])
    connection.cancel()
  }

  @Test func everySubscriber_getsEachValue() {
    let connectable = multicast()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(first)
    connectable.subscribe(second)
    let connection = connectable.connect()
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(TestError()))
    let expected: [RecordingSubscriber<Int, TestError>.Event] = [
      .subscription, .value(1), .value(2), .completion(.failure(TestError())),
    ]
    #expect(first.events == expected)
    #expect(second.events == expected)
    #expect(upstream.subscriptionCount == 1)
    _ = connection
  }

  // Differential oracle (issue 15), K187: `multicast - C C`.
  @Test func connectTwice_subscribesUpstreamTwice() {
    let connectable = multicast()
    let recorder = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(recorder)
    let first = connectable.connect()
    let second = connectable.connect()
    #expect(upstream.subscriptionCount == 2)
    upstream.send(1)
    #expect(recorder.values == [1, 1])
    second.cancel()
    upstream.send(2)
    #expect(recorder.values == [1, 1, 2])
    first.cancel()
    upstream.send(3)
    #expect(recorder.values == [1, 1, 2])
    #expect(
      upstream.requests == [.demand(.unlimited), .demand(.unlimited), .cancel, .cancel]
    )
  }

  @Test func cancelConnection_disconnectsAndConnectAgainResubscribes() {
    let connectable = multicast()
    let recorder = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(recorder)
    let connection = connectable.connect()
    upstream.send(1)
    connection.cancel()
    upstream.send(2)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    let again = connectable.connect()
    upstream.send(3)
    #expect(recorder.values == [1, 3])
    #expect(upstream.requests == [.demand(.unlimited), .cancel, .demand(.unlimited)])
    again.cancel()
  }

  @Test func subjectInstance_isUsed() {
    let subject = PassthroughSubject<Int, TestError>()
    let connectable = upstream.multicast(subject: subject)
    let recorder = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(recorder)
    subject.send(9)
    #expect(recorder.values == [9])
  }

  @Test func createSubject_calledOnce() {
    let calls = LockedState(0)
    let connectable = upstream.multicast { () -> PassthroughSubject<Int, TestError> in
      calls.withLock { $0 += 1 }
      return PassthroughSubject()
    }
    connectable.subscribe(RecordingSubscriber<Int, TestError>())
    connectable.subscribe(RecordingSubscriber<Int, TestError>())
    let connection = connectable.connect()
    #expect(calls.withLock { $0 } == 1)
    connection.cancel()
  }

  @Test func demandNone_subscriberMissesValuesUntilItRequests() {
    let connectable = multicast()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    connectable.subscribe(recorder)
    let connection = connectable.connect()
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [2])
    #expect(recorder.violations.isEmpty)
    connection.cancel()
  }

  @Test func demandFromReceive_isHonoured() {
    let connectable = multicast()
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    connectable.subscribe(recorder)
    let connection = connectable.connect()
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1, 2])
    #expect(recorder.violations.isEmpty)
    connection.cancel()
  }

  @Test func subscriberCancel_stopsItsValuesOnly() {
    let connectable = multicast()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(first)
    connectable.subscribe(second)
    let connection = connectable.connect()
    upstream.send(1)
    first.cancel()
    upstream.send(2)
    #expect(first.values == [1])
    #expect(second.values == [1, 2])
    #expect(upstream.requests == [.demand(.unlimited)])
    connection.cancel()
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let connectable = multicast()
    let holder = LockedState<(any Subscription)?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.withLock { $0 }?.cancel()
      return .none
    }
    connectable.subscribe(recorder)
    holder.withLock { $0 = recorder.subscription }
    let connection = connectable.connect()
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    connection.cancel()
  }

  @Test func subscriptionAfterCompletion_getsCompletion() {
    let connectable = multicast()
    let connection = connectable.connect()
    upstream.send(completion: .finished)
    let late = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(late)
    #expect(late.completion == .finished)
    connection.cancel()
  }

  @Test func subscription_describedAsMulticast() {
    let recorder = RecordingSubscriber<Int, TestError>()
    multicast().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Multicast")
  }

  @Test func inner_releasedAfterCancelAndAfterCompletion() {
    let connectable = multicast()
    weak var cancelled: AnyObject?
    weak var completed: AnyObject?
    do {
      let first = RecordingSubscriber<Int, TestError>()
      let second = RecordingSubscriber<Int, TestError>()
      connectable.subscribe(first)
      connectable.subscribe(second)
      cancelled = first.subscription as AnyObject?
      completed = second.subscription as AnyObject?
      first.cancel()
      let connection = connectable.connect()
      upstream.send(completion: .finished)
      connection.cancel()
    }
    #expect(cancelled == nil)
    #expect(completed == nil)
  }

  @Test func concurrentConnects_eachSubscribesUpstreamOnce() {
    let connectable = multicast()
    let recorder = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(recorder)
    let connections = LockedState<[any Cancellable]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      let connection = connectable.connect()
      connections.withLock { $0.append(connection) }
    }
    #expect(upstream.subscriptionCount == 8)
    DispatchQueue.concurrentPerform(iterations: 8) { index in
      let connection = connections.withLock { $0[index] }
      connection.cancel()
      connection.cancel()
    }
    let requests = upstream.requests
    #expect(requests.filter { $0 == .cancel }.count == 8)
    #expect(requests.filter { $0 == .demand(.unlimited) }.count == 8)
  }

  @Test func concurrentConnectAndCancel_cancelEveryConnection() {
    let connectable = multicast()
    let demanding = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(demanding)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<200 {
        connectable.connect().cancel()
      }
    }
    let requests = upstream.requests
    #expect(requests.filter { $0 == .cancel }.count == requests.filter { $0 != .cancel }.count)
    let connection = connectable.connect()
    let recorder = RecordingSubscriber<Int, TestError>()
    connectable.subscribe(recorder)
    upstream.send(1)
    #expect(recorder.values == [1])
    connection.cancel()
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      TestPublisher<Int, Never>().multicast { PassthroughSubject<Int, Never>() }.subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  /// A subject drops values its subscriber has no demand for, so the kit runs on an upstream
  /// that only completes; connecting happens through `autoconnect()`.
  @Test func autoconnectedMulticast_conforms() {
    PublisherConformance(
      elements: 0,
      independentSubscriptions: false,
      makePublisher: {
        Empty<Int, TestError>().multicast { PassthroughSubject() }.autoconnect()
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).multicast { PassthroughSubject() }.autoconnect()
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.01", "SC-3.02", "SC-5.01"])
  }
}

/// A subject that calls its one subscriber directly and records the demand it returns.
// Sendable: used on one thread only.
private final class DirectSubject: Subject, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  let probe = SubscriptionProbe()
  private(set) var returned: [Subscribers.Demand] = []
  private var subscriber: AnySubscriber<Int, Never>?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = AnySubscriber(subscriber)
    subscriber.receive(subscription: probe)
  }

  func send(_ value: Int) {
    if let subscriber { returned.append(subscriber.receive(value)) }
  }

  func send(completion: Subscribers.Completion<Never>) {
    subscriber?.receive(completion: completion)
  }

  func send(subscription: any Subscription) {
    subscription.request(.unlimited)
  }
}
