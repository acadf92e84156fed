import Dispatch
import Foundation
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamSnail
import StreamTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct ReplaySubjectTests {
  struct Boom: Error, Equatable {}

  typealias Recorder = RecordingSubscriber<Int, Boom>

  let subject = ReplaySubject<Int, Boom>(bufferSize: 2)

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_mirrorsDownstreamDemandAndTheValuesWaiting() throws {
    subject.send(1)
    subject.send(2)
    subject.send(3)
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    subject.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "ReplaySubject")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "ReplaySubject")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "demand", "buffer"])
    #expect(children().first?.value as? RecordingSubscriber<Int, Boom> === recorder)
    #expect(children().dropFirst().map { String(describing: $0.value) } == ["max(0)", "[2, 3]"])
    recorder.request(.max(2))
    #expect(recorder.values == [2, 3])
    #expect(children().dropFirst().map { String(describing: $0.value) } == ["max(0)", "[]"])
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "max(0)", "[]"])
  }

  @Test func lateSubscriber_getsLastValuesThenLiveValues() {
    subject.send(1)
    subject.send(2)
    subject.send(3)
    let recorder = Recorder()
    subject.subscribe(recorder)
    subject.send(4)
    #expect(recorder.events == [.subscription, .value(2), .value(3), .value(4)])
  }

  /// Snail's spelling `Replay(2)`, the threshold unlabeled.
  @Test func snailSpelling_unlabeledThreshold_replaysTheLastValues() {
    let replay = Replay<Int>(2)
    replay.send(1)
    replay.send(2)
    replay.send(3)
    let recorder = RecordingSubscriber<Int, any Error>()
    replay.subscribe(recorder)
    #expect(recorder.values == [2, 3])
    #expect(replay.bufferSize == 2)
  }

  @Test func earlySubscriber_getsEveryValue() {
    let recorder = Recorder()
    subject.subscribe(recorder)
    for value in 1...5 { subject.send(value) }
    #expect(recorder.values == [1, 2, 3, 4, 5])
  }

  @Test func finishedSubject_replaysValuesThenFinished() {
    subject.send(1)
    subject.send(2)
    subject.send(3)
    subject.send(completion: .finished)
    let recorder = Recorder()
    subject.subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(2), .value(3), .completion(.finished)])
  }

  @Test func failedSubject_replaysValuesThenFailure() {
    subject.send(1)
    subject.send(completion: .failure(Boom()))
    let first = Recorder()
    let second = Recorder()
    subject.subscribe(first)
    subject.subscribe(second)
    let expected: [Recorder.Event] = [.subscription, .value(1), .completion(.failure(Boom()))]
    #expect(first.events == expected)
    #expect(second.events == expected)
  }

  @Test func afterCompletion_valuesAndCompletionsAreIgnored() {
    let recorder = Recorder()
    subject.subscribe(recorder)
    subject.send(1)
    subject.send(completion: .finished)
    subject.send(2)
    subject.send(completion: .failure(Boom()))
    let late = Recorder()
    subject.subscribe(late)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(late.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func noDemand_replayWaitsForRequest() {
    subject.send(1)
    subject.send(2)
    let recorder = Recorder(initialDemand: nil)
    subject.subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.values == [1])
    recorder.request(.max(5))
    #expect(recorder.values == [1, 2])
  }

  @Test func maxOne_deliversOneValuePerRequest() {
    for value in 1...2 { subject.send(value) }
    let recorder = Recorder(initialDemand: .max(1))
    subject.subscribe(recorder)
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2])
    subject.send(3)
    #expect(recorder.values == [1, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandFromReceive_addsUp() {
    subject.send(1)
    subject.send(2)
    let recorder = Recorder(initialDemand: .max(1)) { $0 < 3 ? .max(1) : .none }
    subject.subscribe(recorder)
    for value in 3...5 { subject.send(value) }
    #expect(recorder.values == [1, 2, 3])
  }

  @Test func liveValuesWithoutDemand_keepOnlyTheLatestBufferSize() {
    let recorder = Recorder(initialDemand: nil)
    subject.subscribe(recorder)
    for value in 1...5 { subject.send(value) }
    recorder.request(.unlimited)
    subject.send(6)
    #expect(recorder.values == [4, 5, 6])
  }

  @Test func bufferSizeZero_dropsValuesWithoutDemandLikePassthrough() {
    let passthrough = ReplaySubject<Int, Boom>(bufferSize: 0)
    passthrough.send(1)
    let recorder = Recorder(initialDemand: nil)
    passthrough.subscribe(recorder)
    passthrough.send(2)
    recorder.request(.max(1))
    passthrough.send(3)
    passthrough.send(4)
    passthrough.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func completion_waitsBehindKeptValues() {
    let recorder = Recorder(initialDemand: nil)
    subject.subscribe(recorder)
    subject.send(1)
    subject.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  /// As with Combine's subjects: a value sent from inside the subscriber is delivered at once,
  /// re-entrantly (before: queued until the subscriber returned).
  @Test func sendFromReceive_isDeliveredReentrantly() {
    let subject = self.subject
    let log = Mutex<[String]>([])
    let recorder = Recorder { value in
      log.withLock { $0.append("in \(value)") }
      if value < 3 { subject.send(value + 1) }
      log.withLock { $0.append("out \(value)") }
      return .none
    }
    subject.subscribe(recorder)
    subject.send(1)
    #expect(recorder.values == [1, 2, 3])
    #expect(log.withLock { $0 } == ["in 1", "in 2", "in 3", "out 3", "out 2", "out 1"])
  }

  /// A value sent from inside the subscriber while kept values wait goes behind them, and the
  /// outer delivery drains them when the subscriber returns, one level deep.
  @Test func sendFromReceive_behindKeptValues_isDrainedByTheOuterDelivery() {
    for value in 1...2 { subject.send(value) }
    let subject = self.subject
    let depth = Atomic(0)
    let maxDepth = Atomic(0)
    let box = RecorderBox()
    let recorder = Recorder(initialDemand: .max(1)) { value in
      let now = depth.add(1, ordering: .relaxed).newValue
      maxDepth.max(now, ordering: .relaxed)
      if value == 1 {
        subject.send(3)  // 2 is kept ahead of it
        box.recorder?.request(.max(2))
      }
      depth.subtract(1, ordering: .relaxed)
      return .none
    }
    box.recorder = recorder
    subject.subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
    #expect(maxDepth.load(ordering: .relaxed) == 1)
    box.recorder = nil
  }

  @Test func concurrentSend_waitsForTheBusySubscriber_deliversOnItsThread() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    expectBWaitsForAThenDeliversOnB(
      subject,
      sendA: { subject.send(1) },
      sendB: { subject.send(2) },
      isA: { $0 == 1 },
      isB: { $0 == 2 }
    )
  }

  /// Demand is checked when a value is sent, as Combine's subjects check it: with no demand and
  /// nothing to keep (`bufferSize` 0), a value sent while the subscriber is busy on another
  /// thread is dropped, even if the busy subscriber requests more before it returns.
  @Test func demand_isCheckedWhenAValueIsSent() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 0)
    let waits = TimedWaits()
    let inside = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let box = NeverRecorderBox()
    let subscriber = RecordingSubscriber<Int, Never>(initialDemand: .max(1)) { value in
      if value == 1 {
        inside.signal()
        waits.wait(go)
        box.recorder?.request(.max(1))
      }
      return .none
    }
    box.recorder = subscriber
    subject.subscribe(subscriber)
    let aDone = runOnThread("A") { subject.send(1) }
    waits.wait(inside)
    subject.send(2)  // no demand now: dropped, although 1's subscriber requests one more
    go.signal()
    waits.wait(aDone)
    subject.send(3)
    #expect(waits.timedOut == 0)
    #expect(subscriber.values == [1, 3])
    box.recorder = nil
  }

  @Test func requestFromReceive_doesNotRecurse() {
    for value in 1...2 { subject.send(value) }
    let depth = Atomic(0)
    let maxDepth = Atomic(0)
    let box = RecorderBox()
    let recorder = Recorder(initialDemand: .max(1)) { _ in
      let now = depth.add(1, ordering: .relaxed).newValue
      maxDepth.max(now, ordering: .relaxed)
      box.recorder?.request(.max(1))
      depth.subtract(1, ordering: .relaxed)
      return .none
    }
    box.recorder = recorder
    subject.subscribe(recorder)
    subject.send(3)
    #expect(recorder.values == [1, 2, 3])
    #expect(maxDepth.load(ordering: .relaxed) == 1)
    box.recorder = nil
  }

  @Test func cancelFromReceive_stopsDelivery() {
    for value in 1...2 { subject.send(value) }
    let box = RecorderBox()
    let recorder = Recorder { _ in
      box.recorder?.cancel()
      return .none
    }
    box.recorder = recorder
    subject.subscribe(recorder)
    subject.send(3)
    #expect(recorder.values == [1])
    #expect(recorder.violations.isEmpty)
    box.recorder = nil
  }

  @Test func cancelBeforeValues_deliversNothing() {
    let recorder = Recorder()
    subject.subscribe(recorder)
    recorder.cancel()
    subject.send(1)
    subject.send(completion: .finished)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelAfterValues_laterValuesAreNotDelivered() {
    let recorder = Recorder()
    subject.subscribe(recorder)
    subject.send(1)
    recorder.cancel()
    subject.send(2)
    recorder.cancel()
    #expect(recorder.values == [1])
  }

  @Test func cancel_releasesSubscriberAndSubscription() {
    weak var weakRecorder: Recorder?
    weak var weakSubscription: AnyObject?
    do {
      let recorder = Recorder()
      subject.subscribe(recorder)
      weakRecorder = recorder
      weakSubscription = recorder.subscription as AnyObject?
      recorder.cancel()
    }
    subject.send(1)
    #expect(weakRecorder == nil)
    #expect(weakSubscription == nil)
  }

  @Test func completion_releasesSubscriberAndSubscription() {
    weak var weakRecorder: Recorder?
    weak var weakSubscription: AnyObject?
    do {
      let recorder = Recorder()
      subject.subscribe(recorder)
      weakRecorder = recorder
      weakSubscription = recorder.subscription as AnyObject?
      subject.send(completion: .finished)
    }
    #expect(weakRecorder == nil)
    #expect(weakSubscription == nil)
  }

  @Test func subscription_describesItselfAsReplaySubject() {
    let recorder = Recorder()
    subject.subscribe(recorder)
    #expect(recorder.subscriptionDescription == "ReplaySubject")
  }

  @Test func sendSubscription_requestsUnlimitedAndForwards() {
    let upstream = TestPublisher<Int, Boom>()
    let recorder = Recorder()
    subject.subscribe(recorder)
    let cancellable = upstream.subscribe(subject)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(upstream.requests == [.demand(.unlimited)])
    withExtendedLifetime(cancellable) {}
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func finishedAndCancelledUpstreams_areNotKept() {
    weak var finishedLink: AnyObject?
    weak var cancelledLink: AnyObject?
    do {
      let finished = OneSubscriberPublisher()
      let cancelled = OneSubscriberPublisher()
      let finishedToken = finished.subscribe(subject)
      let cancelledToken = cancelled.subscribe(subject)
      finishedLink = finished.subscriber
      cancelledLink = cancelled.subscriber
      finished.finish()
      cancelledToken.cancel()
      withExtendedLifetime(finishedToken) {}
    }
    #expect(finishedLink == nil)
    #expect(cancelledLink == nil)
  }

  @Test func snailName_isAnUntypedReplaySubject() {
    let replay = Replay<Int>(bufferSize: 1)
    replay.send(1)
    let recorder = RecordingSubscriber<Int, any Error>()
    replay.subscribe(recorder)
    #expect(recorder.values == [1])
    #expect(replay.bufferSize == 1)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let subject = ReplaySubject<Int, Never>(bufferSize: 1)
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      subject.subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func negativeBufferSize_traps() async {
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = ReplaySubject<Int, Never>(bufferSize: -1)
    }
    expectTrap(trap2, "ReplaySubject: bufferSize must not be negative")
  }

  @Test func finishedSubject_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { Self.finished(with: [1, 2, 3]) },
      makeFailingPublisher: {
        let subject = ReplaySubject<Int, Boom>(bufferSize: 3)
        subject.send(1)
        subject.send(completion: .failure(Boom()))
        return subject
      },
      makeLongPublisher: { Self.finished(with: Array(0..<100_000)) }
    )
    .run()
    .expectAllPassed()
  }

  @Test func concurrentSendSubscribeRequestCancel_loseNothingAndNeverOverlap() {
    let senders = 4
    let perSender = 500
    let total = senders * perSender
    let subject = ReplaySubject<Int, Never>(bufferSize: total)
    let early = OverlapProbe()
    subject.subscribe(early)
    let late = (0..<2).map { _ in OverlapProbe() }
    let limited = (0..<2).map { _ in RecordingSubscriber<Int, Never>(initialDemand: nil) }
    let cancelled = (0..<2).map { _ in RecordingSubscriber<Int, Never>() }
    for recorder in limited + cancelled { subject.subscribe(recorder) }
    DispatchQueue.concurrentPerform(iterations: senders + 3) { index in
      switch index {
      case ..<senders:
        for step in 0..<perSender { subject.send(index * perSender + step) }
      case senders:
        for probe in late { subject.subscribe(probe) }
      case senders + 1:
        for _ in 0..<200 { for recorder in limited { recorder.request(.max(1)) } }
      default:
        for recorder in cancelled { recorder.cancel() }
      }
    }
    subject.send(completion: .finished)
    for probe in [early] + late {
      let values = probe.values
      #expect(values.count == total)
      #expect(Set(values).count == total)
      for sender in 0..<senders {
        let own = values.filter { $0 / perSender == sender }
        #expect(own == own.sorted())
      }
      #expect(probe.finished)
      #expect(!probe.overlapped)
    }
    for recorder in limited {
      #expect(recorder.values.count == 200)
      #expect(recorder.violations.isEmpty)
    }
    for recorder in cancelled {
      // cancel() from another thread doesn't wait for a delivery in progress, so the one value
      // the delivering thread had already taken may arrive after cancel() returned; never more.
      #expect(recorder.violations.count <= 1)
      #expect(recorder.violations.allSatisfy { $0.hasSuffix("after cancel") })
    }
  }

  private static func finished(with values: [Int]) -> ReplaySubject<Int, Boom> {
    let subject = ReplaySubject<Int, Boom>(bufferSize: values.count)
    for value in values { subject.send(value) }
    subject.send(completion: .finished)
    return subject
  }
}

// Sendable: `recorder` is set before use and read by the recorder's own callbacks only.
private final class RecorderBox: @unchecked Sendable {
  var recorder: RecordingSubscriber<Int, ReplaySubjectTests.Boom>?
}

// Sendable: `recorder` is set before use and read by the recorder's own callbacks only.
private final class NeverRecorderBox: @unchecked Sendable {
  var recorder: RecordingSubscriber<Int, Never>?
}

/// An unlimited subscriber that notices two calls at once.
// Sendable: `events` is guarded by `lock`; `inFlight` is atomic.
private final class OverlapProbe: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Never

  private let lock = Lock()
  private var received: [Int] = []
  private var didFinish = false
  private var didOverlap = false
  private let inFlight = Atomic(0)

  var values: [Int] { lock.withLock { received } }
  var finished: Bool { lock.withLock { didFinish } }
  var overlapped: Bool { lock.withLock { didOverlap } }

  func receive(subscription: any Subscription) {
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    let entered = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
    lock.withLock {
      if entered > 1 { didOverlap = true }
      received.append(input)
    }
    inFlight.subtract(1, ordering: .sequentiallyConsistent)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    let entered = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
    lock.withLock {
      if entered > 1 { didOverlap = true }
      didFinish = true
    }
    inFlight.subtract(1, ordering: .sequentiallyConsistent)
  }
}

/// Hands its one subscriber an empty subscription, keeps it only until `finish()`, and lets a
/// test see it through ``subscriber``.
private final class OneSubscriberPublisher: Publisher {
  typealias Output = Int
  typealias Failure = ReplaySubjectTests.Boom

  private var strong: AnySubscriber<Int, Failure>?
  weak var subscriber: AnyObject?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
    strong = AnySubscriber(subscriber)
    self.subscriber = subscriber as AnyObject
    subscriber.receive(subscription: Subscriptions.empty)
  }

  func finish() {
    strong.take()?.receive(completion: .finished)
  }
}
