import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct PassthroughSubjectTests {
  let subject = PassthroughSubject<Int, TestError>()

  @Test func valuesAndCompletion_reachEverySubscriber() {
    let first = Recorder<Int, TestError>()
    let second = Recorder<Int, TestError>()
    subject.subscribe(first)
    subject.subscribe(second)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(TestError()))
    let expected: [Event<Int, TestError>] = [
      .subscription("PassthroughSubject"), .value(1), .value(2), .completion(.failure(TestError())),
    ]
    #expect(first.events == expected)
    #expect(second.events == expected)
  }

  @Test func noDemand_dropsValue() {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    subject.subscribe(recorder)
    subject.send(1)
    recorder.request(.max(1))
    subject.send(2)
    subject.send(3)
    #expect(recorder.values == [2])
  }

  @Test func demandReturnedFromReceive_addsUp() {
    let recorder = Recorder<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: { $0 < 3 ? .max(1) : .none }
    )
    subject.subscribe(recorder)
    for value in 1...5 { subject.send(value) }
    #expect(recorder.values == [1, 2, 3])
  }

  @Test func finiteDemand_neverExceeded() {
    let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
    subject.subscribe(recorder)
    for value in 1...5 { subject.send(value) }
    recorder.request(.max(1))
    subject.send(6)
    subject.send(7)
    #expect(recorder.values == [1, 2, 6])
  }

  @Test func lateSubscriber_receivesCompletionOnly() {
    subject.send(completion: .finished)
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.finished)])
  }

  @Test func afterCompletion_nothingIsDelivered() {
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    subject.send(completion: .finished)
    subject.send(1)
    subject.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription("PassthroughSubject"), .completion(.finished)])
  }

  @Test func afterCancel_nothingIsDelivered() {
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    subject.send(1)
    recorder.cancel()
    recorder.cancel()
    subject.send(2)
    subject.send(completion: .finished)
    #expect(recorder.events == [.subscription("PassthroughSubject"), .value(1)])
  }

  @Test func cancelFromInsideReceive_stopsDelivery() {
    let recorder = Recorder<Int, TestError>(onValue: { recorder, _ in recorder.cancel() })
    subject.subscribe(recorder)
    subject.send(1)
    subject.send(2)
    #expect(recorder.values == [1])
  }

  @Test func sendFromInsideReceive_isDeliveredReentrantly() {
    let log = Log()
    let subject = self.subject
    let recorder = Recorder<Int, TestError>(onValue: { _, value in
      log.append("begin \(value)")
      if value == 1 { subject.send(2) }
      log.append("end \(value)")
    })
    subject.subscribe(recorder)
    subject.send(1)
    #expect(log.entries == ["begin 1", "begin 2", "end 2", "end 1"])
  }

  @Test func completionFromInsideReceive_endsAtOnce() {
    let subject = self.subject
    let recorder = Recorder<Int, TestError>(onValue: { _, _ in
      subject.send(completion: .finished)
      subject.send(9)
    })
    subject.subscribe(recorder)
    subject.send(1)
    subject.send(2)
    #expect(
      recorder.events == [.subscription("PassthroughSubject"), .value(1), .completion(.finished)]
    )
  }

  @Test func requestFromInsideReceive_addsDemandWithoutRecursion() {
    let recorder = Recorder<Int, TestError>(
      initialDemand: .max(1),
      onValue: { recorder, _ in recorder.request(.max(1)) }
    )
    subject.subscribe(recorder)
    for value in 1...3 { subject.send(value) }
    #expect(recorder.values == [1, 2, 3])
  }

  @Test func cancelledSubscription_releasesSubscriberAndItself() {
    weak var weakSubscription: AnyObject?
    weak var weakSubscriber: WeakHolder<Int, TestError>?
    do {
      let holder = WeakHolder<Int, TestError>()
      weakSubscriber = holder
      subject.subscribe(holder)
      weakSubscription = holder.subscription
      #expect(weakSubscription != nil)
      holder.cancelAndRelease()
    }
    #expect(weakSubscriber == nil)
    #expect(weakSubscription == nil)
  }

  /// A subscriber with unlimited demand takes the conduit's open path (no lock); cancelling
  /// from inside its own delivery stops it at once and still releases it.
  @Test func unlimitedSubscriber_cancelInsideDelivery_stopsAndReleasesIt() {
    final class CancelsOnTwo: Subscriber {
      var subscription: (any Subscription)?
      var values: [Int] = []
      func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
      }
      func receive(_ input: Int) -> Subscribers.Demand {
        values.append(input)
        if input == 2 { subscription?.cancel() }
        return .none
      }
      func receive(completion: Subscribers.Completion<TestError>) {}
    }
    weak var weakSubscriber: CancelsOnTwo?
    var received: [Int] = []
    do {
      let subscriber = CancelsOnTwo()
      weakSubscriber = subscriber
      subject.subscribe(subscriber)
      for value in 1...4 { subject.send(value) }
      received = subscriber.values
      subscriber.subscription = nil
    }
    #expect(received == [1, 2])
    #expect(weakSubscriber == nil)
  }

  /// On the open path, a send from inside the subscriber is delivered at once, inside the
  /// delivery in progress, as Combine does.
  @Test func unlimitedSubscriber_reentrantSend_isDeliveredInsideTheDelivery() {
    let log = Log()
    final class Reenters: Subscriber {
      let subject: PassthroughSubject<Int, TestError>
      let log: Log
      init(_ subject: PassthroughSubject<Int, TestError>, _ log: Log) {
        self.subject = subject
        self.log = log
      }
      func receive(subscription: any Subscription) { subscription.request(.unlimited) }
      func receive(_ input: Int) -> Subscribers.Demand {
        log.append("in \(input)")
        if input == 1 { subject.send(10) }
        log.append("out \(input)")
        return .none
      }
      func receive(completion: Subscribers.Completion<TestError>) { log.append("end") }
    }
    subject.subscribe(Reenters(subject, log))
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(log.entries == ["in 1", "in 10", "out 10", "out 1", "in 2", "out 2", "end"])
  }

  // A send reaches the subscribers it found when it began. Subscribers added or removed from
  // inside a delivery change the set for later sends only (as in Combine, whose subject also
  // delivers to a copy of its list); one cancelled before its turn receives nothing.
  @Test func subscribersChangedDuringASend_laterSendsReachTheNewSet() {
    let first = Recorder<Int, TestError>()
    let second = Recorder<Int, TestError>()
    let third = Recorder<Int, TestError>()
    var changed = false
    let changer = subject.sink(
      receiveCompletion: { _ in },
      receiveValue: { [subject] _ in
        guard !changed else { return }
        changed = true
        second.cancel()
        subject.subscribe(third)
      }
    )
    subject.subscribe(first)
    subject.subscribe(second)
    subject.send(1)
    subject.send(2)
    #expect(first.values == [1, 2])
    #expect(second.values == [])
    #expect(third.values == [2])
    withExtendedLifetime(changer) {}
  }

  /// The subscription of a subscriber cancelled during a send is released once that send
  /// ends, not kept for later ones.
  @Test func subscriptionCancelledDuringASend_isReleasedWhenTheSendEnds() {
    weak var weakSubscription: AnyObject?
    let holder = WeakHolder<Int, TestError>()
    let canceller = subject.sink(
      receiveCompletion: { _ in },
      receiveValue: { _ in holder.cancelAndRelease() }
    )
    subject.subscribe(holder)
    weakSubscription = holder.subscription
    #expect(weakSubscription != nil)
    subject.send(1)
    #expect(weakSubscription == nil)
    withExtendedLifetime(canceller) {}
  }

  /// Watches a subscriber from inside its own delivery: whether it is still alive there.
  final class Probe {
    weak var subscriber: AnyObject?
    var aliveInside: Bool?
  }

  /// A subscriber (not the subject's own `sink`) that ends its subscription from inside a
  /// delivery, through `end`, and then looks whether it is still alive.
  final class EndsInside: Subscriber {
    typealias Input = Int
    typealias Failure = TestError
    var subscription: (any Subscription)?
    let probe: Probe
    let end: (EndsInside) -> Void
    private(set) var completions = 0

    init(probe: Probe, end: @escaping (EndsInside) -> Void) {
      self.probe = probe
      self.end = end
    }

    func receive(subscription: any Subscription) {
      self.subscription = subscription
      subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
      let probe = self.probe  // read before the end, which must not release this subscriber
      end(self)
      probe.aliveInside = probe.subscriber != nil
      return .none
    }

    func receive(completion: Subscribers.Completion<TestError>) {
      completions += 1
    }
  }

  /// A subscriber that cancels itself from inside a delivery on the open path (which calls it
  /// where the subject's conduit stores it, without retaining it) is not released under that
  /// delivery; it goes when the send ends.
  @Test func subscriberCancellingItselfInsideADelivery_staysUntilTheSendEnds() {
    let probe = Probe()
    do {
      let subscriber = EndsInside(probe: probe) { subscriber in
        subscriber.subscription?.cancel()
        subscriber.subscription = nil
      }
      probe.subscriber = subscriber
      subject.subscribe(subscriber)
    }
    #expect(probe.subscriber != nil)  // held by the subject
    subject.send(1)
    #expect(probe.aliveInside == true)
    #expect(probe.subscriber == nil)
  }

  /// The same for a completion sent from inside the delivery: delivered at once, inside it, and
  /// the subscriber stays until the send ends.
  @Test func completionSentInsideADelivery_subscriberStaysUntilTheSendEnds() {
    let probe = Probe()
    var completions = 0
    do {
      let subscriber = EndsInside(probe: probe) { [subject] subscriber in
        subject.send(completion: .finished)
        completions = subscriber.completions
      }
      probe.subscriber = subscriber
      subject.subscribe(subscriber)
    }
    subject.send(1)
    #expect(completions == 1)  // delivered inside the delivery
    #expect(probe.aliveInside == true)
    #expect(probe.subscriber == nil)
  }

  /// A completion sent from inside a delivery ends every subscriber at once; the value being
  /// sent then reaches none of those whose turn hadn't come.
  @Test func completionDuringASend_laterSubscribersGetTheCompletionOnly() {
    let second = Recorder<Int, TestError>()
    let first = subject.sink(
      receiveCompletion: { _ in },
      receiveValue: { [subject] _ in subject.send(completion: .finished) }
    )
    subject.subscribe(second)
    subject.send(1)
    subject.send(2)
    #expect(second.events == [.subscription("PassthroughSubject"), .completion(.finished)])
    withExtendedLifetime(first) {}
  }

  @Test func completedSubscription_releasesSubscriberAndItself() {
    weak var weakSubscription: AnyObject?
    weak var weakSubscriber: WeakHolder<Int, TestError>?
    do {
      let holder = WeakHolder<Int, TestError>()
      weakSubscriber = holder
      subject.subscribe(holder)
      weakSubscription = holder.subscription
      subject.send(completion: .finished)
    }
    #expect(weakSubscriber == nil)
    #expect(weakSubscription == nil)
  }

  @Test func sinkToken_deinit_releasesSink() {
    weak var weakSink: Subscribers.Sink<Int, TestError>?
    do {
      let sink = Subscribers.Sink<Int, TestError>(
        receiveCompletion: { _ in },
        receiveValue: { _ in }
      )
      weakSink = sink
      subject.subscribe(sink)
      _ = AnyCancellable(sink)
    }
    #expect(weakSink == nil)
  }

  @Test func sendSubscription_requestsNothingUntilASubscriberHasDemand() {
    let upstream = TestSubscription()
    subject.send(subscription: upstream)
    #expect(upstream.calls == [])
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    subject.subscribe(recorder)
    #expect(upstream.calls == [])
    recorder.request(.max(1))
    #expect(upstream.calls == [.request(.unlimited)])
    recorder.request(.max(1))
    subject.subscribe(Recorder<Int, TestError>())
    #expect(upstream.calls == [.request(.unlimited)])
  }

  @Test func sendSubscriptionAfterDemand_requestsUnlimitedAtOnce() {
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    let upstream = TestSubscription()
    subject.send(subscription: upstream)
    #expect(upstream.calls == [.request(.unlimited)])
  }

  @Test func subscribedCurrentValueSubject_deliversItsValueToTheFirstSubscriber() {
    let source = CurrentValueSubject<String, Never>("initial")
    let relay = PassthroughSubject<String, Never>()
    let link = source.subscribe(relay)
    let recorder = Recorder<String, Never>()
    relay.subscribe(recorder)
    source.send("next")
    #expect(recorder.values == ["initial", "next"])
    link.cancel()
  }

  @Test func subjectDeinit_cancelsUpstream() {
    let upstream = TestSubscription()
    do {
      let subject = PassthroughSubject<Int, Never>()
      subject.send(subscription: upstream)
    }
    #expect(upstream.calls == [.cancel])
  }

  @Test func subscribedToAnotherSubject_relaysValues() {
    let source = PassthroughSubject<Int, TestError>()
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    let link = source.subscribe(subject)
    source.send(1)
    source.send(completion: .finished)
    #expect(
      recorder.events == [.subscription("PassthroughSubject"), .value(1), .completion(.finished)]
    )
    link.cancel()
  }

  @Test func voidSubject_sendWithoutArgument() {
    let taps = PassthroughSubject<Void, Never>()
    var count = 0
    let token = taps.sink { count += 1 }
    taps.send()
    taps.send()
    #expect(count == 2)
    token.cancel()
  }

  @Test func subscription_describesItself() {
    let holder = WeakHolder<Int, TestError>()
    subject.subscribe(holder)
    let subscription = holder.strong
    #expect(subscription.map { String(describing: $0) } == "PassthroughSubject")
    // As Combine's: parent, downstream, demand, subject; the subject is described by its type.
    let mirror = subscription.map { Mirror(reflecting: $0) }
    #expect(mirror?.children.map(\.label) == ["parent", "downstream", "demand", "subject"])
    let subjectText = mirror.flatMap { Array($0.children).last }.map {
      String(describing: $0.value)
    }
    #expect(subjectText == "Optional(PassthroughSubject<Int, TestError>)")
    #expect(
      mirror?.children.dropFirst(2).first?.value as? Subscribers.Demand
        == Subscribers.Demand.unlimited
    )
    subscription?.cancel()
    let ended = subscription.map { Mirror(reflecting: $0) }
    #expect(ended.map { String(describing: $0.children.first!.value) } == "nil")
    holder.cancelAndRelease()
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let subject = PassthroughSubject<Int, Never>()
      let holder = WeakHolder<Int, Never>(demand: .max(1))
      subject.subscribe(holder)
      holder.strong?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }
}

/// A thread-safe log of strings.
final class Log: @unchecked Sendable {
  // Sendable: `_entries` is guarded by `lock`.
  private let lock = Lock()
  private var _entries: [String] = []

  var entries: [String] { lock.withLock { _entries } }

  func append(_ entry: String) {
    lock.withLock { _entries.append(entry) }
  }
}
