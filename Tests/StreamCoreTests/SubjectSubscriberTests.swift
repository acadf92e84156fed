import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct SubjectSubscriberTests {
  // MARK: With real subjects

  @Test func subject_receivesValuesAndCompletion() {
    let source = PassthroughSubject<Int, Never>()
    let relay = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>()
    relay.subscribe(recorder)
    let token = source.subscribe(relay)
    source.send(1)
    source.send(2)
    source.send(completion: .finished)
    withExtendedLifetime(token) {
      #expect(
        recorder.events == [
          .subscription("PassthroughSubject"), .value(1), .value(2), .completion(.finished),
        ]
      )
    }
  }

  @Test func subject_receivesFailure() {
    let source = PassthroughSubject<Int, TestError>()
    let relay = PassthroughSubject<Int, TestError>()
    let recorder = Recorder<Int, TestError>()
    relay.subscribe(recorder)
    let token = source.subscribe(relay)
    source.send(1)
    source.send(completion: .failure(TestError(code: 8)))
    withExtendedLifetime(token) {
      #expect(recorder.values == [1])
      #expect(recorder.completions == [.failure(TestError(code: 8))])
    }
  }

  @Test func currentValueSubject_receivesUpstreamValuesAfterItsOwn() {
    let source = PassthroughSubject<Int, Never>()
    let relay = CurrentValueSubject<Int, Never>(0)
    let recorder = Recorder<Int, Never>()
    relay.subscribe(recorder)
    let token = source.subscribe(relay)
    source.send(1)
    withExtendedLifetime(token) {
      #expect(recorder.values == [0, 1])
      #expect(relay.value == 1)
    }
  }

  @Test func cancelledToken_stopsValuesFromASubjectSource() {
    let source = PassthroughSubject<Int, Never>()
    let relay = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>()
    relay.subscribe(recorder)
    let token = source.subscribe(relay)
    source.send(1)
    token.cancel()
    source.send(2)
    #expect(recorder.values == [1])
    #expect(recorder.completions == [])
  }

  // MARK: Upstream

  @Test func passthroughSubject_requestsUnlimitedFromUpstreamOnceASubscriberHasDemand() {
    let upstream = SpyPublisher<Int, Never>()
    let subject = PassthroughSubject<Int, Never>()
    let token = upstream.subscribe(subject)
    withExtendedLifetime(token) {
      #expect(upstream.subscription.requests == [])
      subject.subscribe(Recorder<Int, Never>())
      #expect(upstream.subscription.requests == [.unlimited])
      #expect(upstream.subscription.cancels == 0)
    }
  }

  @Test func currentValueSubject_requestsUnlimitedFromUpstreamAtOnce() {
    let upstream = SpyPublisher<Int, Never>()
    let token = upstream.subscribe(CurrentValueSubject<Int, Never>(0))
    withExtendedLifetime(token) {
      #expect(upstream.subscription.requests == [.unlimited])
    }
  }

  @Test func returnedCancellable_cancelsUpstreamOnce() {
    let upstream = SpyPublisher<Int, Never>()
    let token = upstream.subscribe(PassthroughSubject<Int, Never>())
    token.cancel()
    token.cancel()
    #expect(upstream.subscription.cancels == 1)
  }

  @Test func returnedCancellableDeinit_cancelsUpstream() {
    let upstream = SpyPublisher<Int, Never>()
    let relay = PassthroughSubject<Int, Never>()
    do {
      let token = upstream.subscribe(relay)
      withExtendedLifetime(token) {
        #expect(upstream.subscription.cancels == 0)
      }
    }
    #expect(upstream.subscription.cancels == 1)
  }

  @Test func cancelAfterCompletion_doesNotCancelUpstream() {
    let upstream = SpyPublisher<Int, Never>()
    let subject = SpySubject<Int, Never>()
    let token = upstream.subscribe(subject)
    upstream.downstream?.receive(completion: .finished)
    token.cancel()
    #expect(upstream.subscription.cancels == 0)
    #expect(subject.completions == [.finished])
  }

  /// As Combine's (OpenCombine's `MulticastTests.testDeallocateConnectedMulticastBeforeCancelling`):
  /// the subscriber holds the subject weakly, so a subject nobody else keeps goes away while
  /// connected, and its deinit cancels the upstream; the token's cancel then does nothing more.
  /// Runs in a child process: the subject's deinit re-enters the subscriber.
  @Test func subject_isHeldWeakly_andItsDeinitCancelsTheUpstream() async {
    await #expect(processExitsWith: .success) {
      let upstream = SpyPublisher<Int, Never>()
      weak var weakRelay: PassthroughSubject<Int, Never>?
      let token: AnyCancellable
      do {
        let relay = PassthroughSubject<Int, Never>()
        weakRelay = relay
        token = upstream.subscribe(relay)
      }
      precondition(weakRelay == nil)
      precondition(upstream.subscription.cancels == 1)
      token.cancel()
      precondition(upstream.subscription.cancels == 1)
      _ = upstream.downstream?.receive(1)  // nowhere to go
    }
  }

  /// As above, with the token's deinit doing the cancel.
  @Test func tokenDeinit_releasesTheSubject() async {
    await #expect(processExitsWith: .success) {
      let upstream = SpyPublisher<Int, Never>()
      weak var weakRelay: PassthroughSubject<Int, Never>?
      do {
        let relay = PassthroughSubject<Int, Never>()
        weakRelay = relay
        let token = upstream.subscribe(relay)
        withExtendedLifetime(token) {}
      }
      precondition(weakRelay == nil)
      precondition(upstream.subscription.cancels == 1)
    }
  }

  @Test func completion_afterTheSubjectWentAway_goesNowhere() {
    let upstream = SpyPublisher<Int, Never>()
    let token: AnyCancellable
    do {
      token = upstream.subscribe(PassthroughSubject<Int, Never>())
    }
    upstream.downstream?.receive(completion: .finished)
    token.cancel()
    #expect(upstream.subscription.cancels == 1)  // the subject's deinit, once
  }

  @Test(arguments: SubjectKind.allCases)
  func finishedUpstreams_areNotKeptBySubject(_ kind: SubjectKind) {
    let subject = kind.make()
    let recorder = Recorder<Int, Never>()
    subject.subscribe(recorder)
    weak var firstLink: AnyObject?
    weak var secondLink: AnyObject?
    do {
      let first = SpyPublisher<Int, Never>()
      let second = SpyPublisher<Int, Never>()
      let firstToken = first.subscribe(subject)
      let secondToken = second.subscribe(subject)
      firstLink = first.downstreamObject
      secondLink = second.downstreamObject
      first.downstream?.receive(completion: .finished)
      second.downstream?.receive(completion: .finished)
      withExtendedLifetime((firstToken, secondToken)) {}
    }
    #expect(firstLink == nil)
    #expect(secondLink == nil)
  }

  @Test(arguments: SubjectKind.allCases)
  func cancelledUpstreams_areNotKeptBySubject(_ kind: SubjectKind) {
    let subject = kind.make()
    weak var link: AnyObject?
    do {
      let upstream = SpyPublisher<Int, Never>()
      let token = upstream.subscribe(subject)
      link = upstream.downstreamObject
      token.cancel()
    }
    #expect(link == nil)
    withExtendedLifetime(subject) {}
  }

  // MARK: What the subject sees

  @Test func subject_receivesOneSubscriptionNamedSubject() {
    let upstream = SpyPublisher<Int, Never>()
    let subject = SpySubject<Int, Never>()
    let token = upstream.subscribe(subject)
    withExtendedLifetime(token) {
      #expect(subject.subscriptions.map { String(describing: $0) } == ["Subject"])
    }
  }

  @Test func subjectsSubscription_forwardsRequestsAndCancelUpstream() throws {
    let upstream = SpyPublisher<Int, Never>()
    let subject = SpySubject<Int, Never>()
    let token = upstream.subscribe(subject)
    let subscription = try #require(subject.subscriptions.first)
    subscription.request(.max(3))
    subscription.cancel()
    subscription.cancel()
    withExtendedLifetime(token) {
      #expect(upstream.subscription.requests == [.max(3)])
      #expect(upstream.subscription.cancels == 1)
    }
  }

  @Test func valuesAndCompletion_reachTheSubjectAndReturnNoDemand() {
    let upstream = SpyPublisher<Int, TestError>()
    let subject = SpySubject<Int, TestError>()
    let token = upstream.subscribe(subject)
    #expect(upstream.downstream?.receive(1) == Subscribers.Demand.none)
    #expect(upstream.downstream?.receive(2) == Subscribers.Demand.none)
    upstream.downstream?.receive(completion: .failure(TestError(code: 6)))
    withExtendedLifetime(token) {
      #expect(subject.values == [1, 2])
      #expect(subject.completions == [.failure(TestError(code: 6))])
    }
  }

  @Test func valuesAfterCancel_doNotReachTheSubject() {
    let upstream = SpyPublisher<Int, Never>()
    let subject = SpySubject<Int, Never>()
    let token = upstream.subscribe(subject)
    _ = upstream.downstream?.receive(1)
    token.cancel()
    _ = upstream.downstream?.receive(2)
    upstream.downstream?.receive(completion: .finished)
    #expect(subject.values == [1])
    #expect(subject.completions == [])
  }

  @Test func eventsAfterCompletion_doNotReachTheSubject() {
    let upstream = SpyPublisher<Int, Never>()
    let subject = SpySubject<Int, Never>()
    let token = upstream.subscribe(subject)
    upstream.downstream?.receive(completion: .finished)
    _ = upstream.downstream?.receive(1)
    upstream.downstream?.receive(completion: .finished)
    withExtendedLifetime(token) {
      #expect(subject.values == [])
      #expect(subject.completions == [.finished])
    }
  }

  @Test func secondSubscription_isCancelled() {
    let upstream = SpyPublisher<Int, Never>()
    let subject = SpySubject<Int, Never>()
    let token = upstream.subscribe(subject)
    let second = SpySubscription()
    upstream.downstream?.receive(subscription: second)
    withExtendedLifetime(token) {
      #expect(second.cancels == 1)
      #expect(subject.subscriptions.count == 1)
      #expect(upstream.subscription.cancels == 0)
    }
  }

  @Test func requestNone_isPassedUpstream_asCombineDoes() {
    let upstream = SpyPublisher<Int, Never>()
    let subject = SpySubject<Int, Never>()
    let token = upstream.subscribe(subject)
    subject.subscriptions.first?.request(.none)
    withExtendedLifetime(token) {
      #expect(upstream.subscription.requests == [.none])
    }
  }
}

// MARK: - Helpers

/// A publisher that hands its subscriber a ``SpySubscription`` and keeps the subscriber, so
/// that a test can send it values and a completion.
private final class SpyPublisher<Output, Failure: Error>: Publisher {
  let subscription = SpySubscription()
  private(set) var downstream: AnySubscriber<Output, Failure>?
  /// The subscriber itself, for weak references.
  private(set) var downstreamObject: AnyObject?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    downstream = AnySubscriber(subscriber)
    downstreamObject = subscriber as AnyObject
    subscriber.receive(subscription: subscription)
  }
}

/// The subjects of StreamCore, for parameterized tests.
enum SubjectKind: CaseIterable, Sendable {
  case passthrough
  case currentValue

  func make() -> any Subject<Int, Never> {
    switch self {
    case .passthrough: PassthroughSubject<Int, Never>()
    case .currentValue: CurrentValueSubject<Int, Never>(0)
    }
  }
}

/// A subject that records what it is sent and requests nothing by itself.
// Sendable: all mutable state is guarded by `lock`.
private final class SpySubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  private let lock = Lock()
  private var _values: [Output] = []
  private var _completions: [Subscribers.Completion<Failure>] = []
  private var _subscriptions: [any Subscription] = []

  var values: [Output] { lock.withLock { _values } }
  var completions: [Subscribers.Completion<Failure>] { lock.withLock { _completions } }
  var subscriptions: [any Subscription] { lock.withLock { _subscriptions } }

  func send(_ value: Output) { lock.withLock { _values.append(value) } }

  func send(completion: Subscribers.Completion<Failure>) {
    lock.withLock { _completions.append(completion) }
  }

  func send(subscription: any Subscription) {
    lock.withLock { _subscriptions.append(subscription) }
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .finished)
  }
}
