import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AutoconnectTests {
  @Test func subscription_looksLikeTheUpstreams() throws {
    // As Combine's (OpenCombine's `testAutoconnectReflection`): the downstream's subscription
    // has the upstream subscription's description and identifier, and no mirror of its own.
    let connectable = ConnectableSpy()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    connectable.autoconnect().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let upstreamDescription = String(describing: connectable.subscription)
    #expect(String(describing: subscription) == upstreamDescription)
    #expect(subscription.combineIdentifier == connectable.subscription.combineIdentifier)
    #expect(!(subscription is any CustomReflectable))
    // So a mirror shows its fields, named and described as Combine's.
    let fields = Mirror(reflecting: subscription).children.map {
      "\($0.label ?? "_"): \(String(describing: $0.value))"
    }
    #expect(fields.count == 2)
    #expect(fields.first?.hasPrefix("parent: ") == true)
    #expect(fields.first?.contains("Publishers.Autoconnect<") == true)
    #expect(fields.last == "upstreamSubscription: \(upstreamDescription)")
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == upstreamDescription)
    subscription.request(.max(3))
    subscription.cancel()
    #expect(connectable.subscription.requested == [.max(3)])
    #expect(connectable.subscription.cancelled)
  }

  @Test func subscriber_isDescribedAsAutoconnect_andMirrorsParentAndDownstream() throws {
    let connectable = ConnectableSpy()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    let autoconnect = connectable.autoconnect()
    autoconnect.subscribe(recorder)
    let subscriber = try #require(connectable.subscriber)
    #expect(String(describing: subscriber) == "Autoconnect")
    let mirror = Mirror(reflecting: subscriber)
    #expect(mirror.children.map(\.label) == ["parent", "downstream"])
    #expect(mirror.children.first.map { $0.value as AnyObject } === autoconnect)
    #expect(Array(mirror.children).last?.value as? RecordingSubscriber<Int, Never> === recorder)
  }

  let upstream = TestPublisher<Int, TestError>()

  @Test func firstSubscriber_connects() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    #expect(upstream.subscriptionCount == 0)
    let recorder = RecordingSubscriber<Int, TestError>()
    auto.subscribe(recorder)
    #expect(upstream.subscriptionCount == 1)
    upstream.send(1)
    #expect(recorder.values == [1])
  }

  @Test func secondSubscriber_sharesTheConnection() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    auto.subscribe(first)
    auto.subscribe(second)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(upstream.subscriptionCount == 1)
    #expect(first.events == second.events)
    #expect(first.events == [.subscription, .value(1), .completion(.failure(TestError()))])
  }

  // Differential oracle (issue 15), K194: `autoconnect - f0 c0 A`.
  @Test func cancelAfterCompletion_releasesTheSubscriber_soTheNextOneReconnects() {
    let subject = PassthroughSubject<Int, Never>()
    let upstream = TestPublisher<Int, Never>()
    let auto = upstream.multicast(subject: subject).autoconnect()
    let first = RecordingSubscriber<Int, Never>()
    auto.subscribe(first)
    let subscription = first.subscription
    upstream.send(completion: .finished)
    #expect(first.completion == .finished)
    subscription?.cancel()
    let second = RecordingSubscriber<Int, Never>()
    auto.subscribe(second)
    #expect(second.events == [.subscription, .completion(.finished)])
    #expect(upstream.subscriptionCount == 2)
  }

  // Differential oracle (issue 15): `autoconnect - c0 A c0`. As Combine's (OpenCombine's
  // `Autoconnect`): a repeated cancel counts one more subscriber leaving, so it disconnects the
  // subscriber that connected since.
  @Test func secondCancel_countsAgain() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let first = RecordingSubscriber<Int, TestError>()
    auto.subscribe(first)
    let subscription = first.subscription
    subscription?.cancel()
    let second = RecordingSubscriber<Int, TestError>()
    auto.subscribe(second)
    subscription?.cancel()
    upstream.send(1)
    #expect(second.values == [])
    #expect(
      upstream.requests == [.demand(.unlimited), .cancel, .demand(.unlimited), .cancel]
    )
  }

  @Test func lastCancel_disconnectsAndNextSubscriberReconnects() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    auto.subscribe(first)
    auto.subscribe(second)
    first.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
    second.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    let third = RecordingSubscriber<Int, TestError>()
    auto.subscribe(third)
    upstream.send(3)
    #expect(third.values == [3])
    #expect(upstream.requests == [.demand(.unlimited), .cancel, .demand(.unlimited)])
  }

  /// As Combine's (OpenCombine's `AutoconnectTests.testBasicRefcountBehavior`): every cancel
  /// reaches the upstream's subscription, also after the completion and when repeated; the
  /// subscriber is counted once.
  @Test func everyCancel_reachesTheUpstreamsSubscription() {
    let upstream = CancelCountingConnectable()
    let auto = upstream.autoconnect()
    let recorder = RecordingSubscriber<Int, Never>()
    auto.subscribe(recorder)
    let subscription = recorder.subscription
    upstream.finish()
    #expect(recorder.completion == .finished)
    subscription?.cancel()
    subscription?.cancel()
    #expect(upstream.cancels.withLock { $0 } == 2)
    #expect(upstream.connections.withLock { $0 } == ["connected", "disconnected"])
  }

  /// As Combine's: each cancel counts, so one subscriber cancelling twice disconnects the other.
  @Test func cancelTwice_countsTwice() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    auto.subscribe(first)
    auto.subscribe(second)
    let subscription = first.subscription
    first.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    upstream.send(1)
    #expect(second.values == [])
  }

  @Test func demandNone_subscriberMissesValues() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    auto.subscribe(recorder)
    upstream.send(1)
    recorder.request(.max(1))
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func subscription_describedAsTheUpstreamSubscription() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let recorder = RecordingSubscriber<Int, TestError>()
    auto.subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Multicast")
  }

  @Test func inner_releasedAfterCancel() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      auto.subscribe(recorder)
      // The subscription the recorder holds leads to the subscriber attached to the subject.
      inner = subscriptionObject(recorder.subscription)
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      TestPublisher<Int, Never>().makeConnectable().autoconnect().subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  /// As Combine's (OpenCombine's `AutoconnectTests.testReentranceWhenConnecting`): a subscriber
  /// subscribed from inside the first one's `receive(subscription:)` arrives before `connect()`
  /// has returned, so it connects too; the connection recorded last, the first subscriber's,
  /// counts one subscriber, and the other connection is dropped without a cancel.
  @Test func subscriberFromInsideTheFirstsSubscription_connectsAgain() {
    let upstream = RecordingConnectable()
    let auto = upstream.autoconnect()
    let inner = RecordingSubscriber<Int, Never>()
    let outerSubscription = LockedState<(any Subscription)?>(nil)
    let outer = AnySubscriber<Int, Never>(
      receiveSubscription: { subscription in
        outerSubscription.withLock { $0 = subscription }
        auto.subscribe(inner)
      },
      receiveValue: { _ in .none },
      receiveCompletion: { _ in }
    )
    auto.subscribe(outer)
    #expect(upstream.log.withLock { $0 } == ["connect 1", "connect 2"])
    outerSubscription.withLock { $0 }?.cancel()
    #expect(upstream.log.withLock { $0 } == ["connect 1", "connect 2", "cancel 2"])
    inner.cancel()
    #expect(upstream.log.withLock { $0 } == ["connect 1", "connect 2", "cancel 2"])
  }

  /// First subscribers from several threads at once may each connect, as in Combine; the count
  /// never exceeds the subscribers still there, so once every one has cancelled, the next
  /// subscriber connects and its cancel disconnects.
  @Test func concurrentSubscribeAndCancel_endsDisconnected() {
    let upstream = RecordingConnectable()
    let auto = upstream.autoconnect()
    let subscribed = LockedState(0)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<200 {
        let recorder = RecordingSubscriber<Int, Never>()
        auto.subscribe(recorder)
        if recorder.subscription != nil { subscribed.withLock { $0 += 1 } }
        recorder.cancel()
      }
    }
    #expect(subscribed.withLock { $0 } == 800)
    let connects = upstream.connects
    let keeper = RecordingSubscriber<Int, Never>()
    auto.subscribe(keeper)
    #expect(upstream.connects == connects + 1)
    keeper.cancel()
    #expect(upstream.log.withLock { $0.last } == "cancel \(connects + 1)")
  }
}

/// A connectable publisher that logs each `connect()` and each cancel of a connection, numbered;
/// its connections are not `AnyCancellable`s, so dropping one doesn't cancel it.
private final class RecordingConnectable: ConnectablePublisher, Sendable {
  typealias Output = Int
  typealias Failure = Never

  let log = LockedState<[String]>([])

  private final class Connection: Cancellable, Sendable {
    let log: LockedState<[String]>
    let number: Int
    init(log: LockedState<[String]>, number: Int) {
      self.log = log
      self.number = number
    }
    func cancel() { log.withLock { $0.append("cancel \(number)") } }
  }

  var connects: Int { log.withLock { $0.count { $0.hasPrefix("connect") } } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(subscription: SubscriptionProbe())
  }

  func connect() -> any Cancellable {
    let number = log.withLock { log in
      let number = log.count { $0.hasPrefix("connect") } + 1
      log.append("connect \(number)")
      return number
    }
    return Connection(log: log, number: number)
  }
}

/// A connectable publisher that keeps its one subscriber and hands it a ``SubscriptionProbe``.
private final class ConnectableSpy: ConnectablePublisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  let subscription = SubscriptionProbe()
  private(set) var subscriber: Any?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = subscriber
    subscriber.receive(subscription: subscription)
  }

  func connect() -> any Cancellable { AnyCancellable {} }
}

/// A connectable publisher that counts the cancels its subscription gets.
private final class CancelCountingConnectable: ConnectablePublisher, @unchecked Sendable {
  // Unchecked: its state is locked or used on one thread.
  typealias Output = Int
  typealias Failure = Never

  let cancels = LockedState(0)
  let connections = LockedState<[String]>([])
  private var subscriber: AnySubscriber<Int, Never>?

  private final class Counting: Subscription {
    let cancels: LockedState<Int>
    init(cancels: LockedState<Int>) { self.cancels = cancels }
    func request(_ demand: Subscribers.Demand) {}
    func cancel() { cancels.withLock { $0 += 1 } }
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = AnySubscriber(subscriber)
    subscriber.receive(subscription: Counting(cancels: cancels))
  }

  func connect() -> any Cancellable {
    connections.withLock { $0.append("connected") }
    return AnyCancellable { [connections] in connections.withLock { $0.append("disconnected") } }
  }

  func finish() { subscriber?.receive(completion: .finished) }
}
