import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AutoconnectTests {
  @Test func subscription_mirrorsParentAndUpstreamSubscription() throws {
    // As Combine's: the `Autoconnect` publisher and the upstream subscription, whose
    // description is also the playground's.
    let autoconnect = TestPublisher<Int, Never>().makeConnectable().autoconnect()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    autoconnect.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["parent", "upstreamSubscription"])
    #expect(mirror.children.first.map { $0.value as AnyObject } === autoconnect)
    #expect(Array(mirror.children).last.map { String(describing: $0.value) } == "Multicast")
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == "Multicast")
    subscription.cancel()
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

  // Differential oracle (issue 15), I8: `autoconnect - c0 A c0` (OpenCombine disconnects here).
  @Test func secondCancel_countsTheSubscriberOnce() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let first = RecordingSubscriber<Int, TestError>()
    auto.subscribe(first)
    let subscription = first.subscription
    subscription?.cancel()
    let second = RecordingSubscriber<Int, TestError>()
    auto.subscribe(second)
    subscription?.cancel()
    upstream.send(1)
    #expect(second.values == [1])
    #expect(upstream.requests == [.demand(.unlimited), .cancel, .demand(.unlimited)])
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

  @Test func cancelTwice_countsOnce() {
    let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
    let first = RecordingSubscriber<Int, TestError>()
    let second = RecordingSubscriber<Int, TestError>()
    auto.subscribe(first)
    auto.subscribe(second)
    let subscription = first.subscription
    first.cancel()
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
    upstream.send(1)
    #expect(second.values == [1])
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
      inner = recorder.subscription as AnyObject?
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

  @Test func concurrentSubscribeAndCancel_connectsAndDisconnectsInPairs() {
    let source = TestPublisher<Int, Never>()
    let auto = source.multicast { PassthroughSubject<Int, Never>() }.autoconnect()
    let keeper = RecordingSubscriber<Int, Never>()
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for _ in 0..<200 {
        let recorder = RecordingSubscriber<Int, Never>()
        auto.subscribe(recorder)
        recorder.cancel()
      }
      if worker == 0 { auto.subscribe(keeper) }
    }
    let requests = source.requests
    let connects = requests.filter { $0 == .demand(.unlimited) }.count
    let cancels = requests.filter { $0 == .cancel }.count
    #expect(connects == cancels + 1)
    #expect(connects >= 1)
    source.send(1)
    #expect(keeper.values == [1])
    keeper.cancel()
    #expect(source.requests.filter { $0 == .cancel }.count == connects)
  }
}
