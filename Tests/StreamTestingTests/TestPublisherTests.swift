import Dispatch
import StreamCore
import StreamTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct TestPublisherTests {
  private let upstream = TestPublisher<Int, TestFailure>()

  // MARK: Sending

  @Test func send_deliversToASubscriberWithDemand() {
    let recorder = RecordingSubscriber<Int, TestFailure>()
    upstream.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .value(1), .value(2)])
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(upstream.violations.isEmpty)
  }

  @Test func sendWithoutDemand_dropsTheValueAndRecordsAViolation() {
    let recorder = RecordingSubscriber<Int, TestFailure>(initialDemand: .max(1))
    upstream.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.violations == ["sent 2 while demand was none"])
    #expect(recorder.violations.isEmpty)
  }

  @Test func sendWithNoSubscribers_doesNothing() {
    upstream.send(1)
    #expect(upstream.violations.isEmpty)
    #expect(upstream.subscriptionCount == 0)
  }

  @Test func demandReturnedFromReceive_addsToOutstandingDemandWithoutARequest() {
    let recorder = RecordingSubscriber<Int, TestFailure>(
      initialDemand: .max(1),
      demandPerValue: .max(2)
    )
    upstream.subscribe(recorder)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(1)
    #expect(upstream.outstandingDemand == .max(2))
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [1, 2, 3])
    #expect(upstream.outstandingDemand == .max(4))
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func severalSubscribers_eachReceiveByTheirOwnDemand() {
    let eager = RecordingSubscriber<Int, TestFailure>()
    let lazy = RecordingSubscriber<Int, TestFailure>(initialDemand: .max(1))
    upstream.subscribe(eager)
    upstream.subscribe(lazy)
    upstream.send(1)
    upstream.send(2)
    #expect(eager.values == [1, 2])
    #expect(lazy.values == [1])
    #expect(upstream.subscriptionCount == 2)
    #expect(upstream.requests == [.demand(.unlimited), .demand(.max(1))])
    #expect(upstream.violations == ["sent 2 while demand was none"])
  }

  @Test func subscription_describesItselfAsTestPublisher() {
    let recorder = RecordingSubscriber<Int, TestFailure>()
    upstream.subscribe(recorder)
    #expect(recorder.subscriptionDescription == "TestPublisher")
    #expect(recorder.subscription.map { String(describing: $0) } == "TestPublisher")
  }

  // MARK: Requests and cancel

  @Test func requests_recordDemandAndCancelInOrder() {
    let recorder = RecordingSubscriber<Int, TestFailure>(initialDemand: nil)
    upstream.subscribe(recorder)
    recorder.request(.max(2))
    recorder.request(.max(1))
    recorder.cancel()
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1)), .cancel])
  }

  @Test func requestNone_isRecordedAsAViolationInsteadOfTrapping() {
    let recorder = RecordingSubscriber<Int, TestFailure>(initialDemand: nil)
    upstream.subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(upstream.requests == [.demand(.none)])
    #expect(upstream.violations == ["request(.none)"])
  }

  @Test func cancel_stopsDeliveryWithoutAViolation() {
    let recorder = RecordingSubscriber<Int, TestFailure>()
    upstream.subscribe(recorder)
    upstream.send(1)
    recorder.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(upstream.violations.isEmpty)
    #expect(upstream.outstandingDemand == .none)
  }

  @Test func cancelTwice_isRecordedTwiceAndHarmless() {
    let recorder = RecordingSubscriber<Int, TestFailure>()
    upstream.subscribe(recorder)
    let subscription = recorder.subscription
    subscription?.cancel()
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel, .cancel])
  }

  @Test func cancelFromInsideReceive_stopsFurtherValues() {
    let holder = RecorderHolder()
    let recorder = RecordingSubscriber<Int, TestFailure> { value in
      if value == 2 { holder.recorder?.cancel() }
      return .none
    }
    holder.recorder = recorder
    upstream.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [1, 2])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    holder.recorder = nil
  }

  @Test func cancelledSubscriber_isReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, TestFailure>?
    do {
      let recorder = RecordingSubscriber<Int, TestFailure>()
      weakRecorder = recorder
      upstream.subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  // MARK: Completion

  @Test func completion_isDeliveredOnceAndLaterSendsAreIgnored() {
    let recorder = RecordingSubscriber<Int, TestFailure>()
    upstream.subscribe(recorder)
    upstream.send(completion: .failure(TestFailure()))
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.failure(TestFailure()))])
    #expect(recorder.violations.isEmpty)
    #expect(upstream.violations.isEmpty)
  }

  @Test func completedSubscriber_isReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, TestFailure>?
    do {
      let recorder = RecordingSubscriber<Int, TestFailure>()
      weakRecorder = recorder
      upstream.subscribe(recorder)
      upstream.send(completion: .finished)
    }
    #expect(weakRecorder == nil)
  }

  @Test func lateSubscriber_receivesTheCompletionAtOnce() {
    upstream.send(completion: .finished)
    let recorder = RecordingSubscriber<Int, TestFailure>()
    upstream.subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.subscriptionCount == 1)
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  // MARK: Re-entrancy and threads

  @Test func sendFromInsideReceive_isDeliveredReentrantly() {
    let upstream = self.upstream
    let recorder = RecordingSubscriber<Int, TestFailure> { value in
      if value == 1 { upstream.send(2) }
      return .none
    }
    upstream.subscribe(recorder)
    upstream.send(1)
    #expect(recorder.values == [1, 2])
  }

  @Test func completionFromInsideReceive_endsTheSubscription() {
    let upstream = self.upstream
    let recorder = RecordingSubscriber<Int, TestFailure> { _ in
      upstream.send(completion: .finished)
      return .none
    }
    upstream.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func concurrentSends_deliverEveryValueOnceAndNeverOverlap() {
    let upstream = TestPublisher<Int, Never>()
    let subscriber = OverlapDetector()
    upstream.subscribe(subscriber)
    let threads = 8
    let perThread = 2_000
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for index in 0..<perThread {
        upstream.send(thread * perThread + index)
      }
    }
    #expect(subscriber.count == threads * perThread)
    #expect(subscriber.overlaps == 0)
    #expect(upstream.violations.isEmpty)
  }
}

/// An error for tests.
private struct TestFailure: Error, Equatable {}

/// Lets a subscriber's closure reach the subscriber.
// Sendable: all mutable state is guarded by `lock`.
private final class RecorderHolder: @unchecked Sendable {
  private let lock = Lock()
  private var storage: RecordingSubscriber<Int, TestFailure>?

  var recorder: RecordingSubscriber<Int, TestFailure>? {
    get { lock.withLock { storage } }
    set { lock.withLock { storage = newValue } }
  }
}

/// Counts values and notes whether two calls ever overlapped.
private final class OverlapDetector: Subscriber, Sendable {
  typealias Input = Int
  typealias Failure = Never

  private let inside = Atomic<Int>(0)
  private let received = Atomic<Int>(0)
  private let overlapped = Atomic<Int>(0)

  var count: Int { received.load(ordering: .sequentiallyConsistent) }
  var overlaps: Int { overlapped.load(ordering: .sequentiallyConsistent) }

  func receive(subscription: any Subscription) {
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
      overlapped.add(1, ordering: .sequentiallyConsistent)
    }
    received.add(1, ordering: .sequentiallyConsistent)
    inside.subtract(1, ordering: .sequentiallyConsistent)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}
