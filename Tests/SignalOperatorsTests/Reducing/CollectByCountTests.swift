import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CollectByCountTests {
  @Test func subscription_mirrorsDownstreamUpstreamBufferAndCount() throws {
    // As Combine's: the downstream, the upstream subscription, the group being filled and the
    // group size.
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1))
    upstream.collect(3).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(7)
    let mirror = Mirror(reflecting: subscription)
    #expect(
      mirror.children.map(\.label) == ["downstream", "upstreamSubscription", "buffer", "count"]
    )
    #expect(mirror.children.first?.value as? RecordingSubscriber<[Int], TestError> === recorder)
    #expect(mirror.children.dropFirst(2).first?.value as? [Int] == [7])
    #expect(Array(mirror.children).last?.value as? Int == 3)
  }

  let upstream = TestPublisher<Int, TestError>()

  @Test func fullArrays_sentAsTheyFill_lastShortOneOnFinish() {
    let recorder = RecordingSubscriber<[Int], TestError>(
      initialDemand: .max(2),
      demandPerValue: .max(3)
    )
    upstream.collect(4).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(8))])
    for value in 1...3 { upstream.send(value) }
    #expect(recorder.values.isEmpty)
    upstream.send(4)
    #expect(recorder.values == [[1, 2, 3, 4]])
    #expect(upstream.outstandingDemand == .max(16))
    for value in 5...10 { upstream.send(value) }
    upstream.send(completion: .finished)
    #expect(
      reduceTrace(recorder) == [
        "subscription", "[1, 2, 3, 4]", "[5, 6, 7, 8]", "[9, 10]", "finished",
      ]
    )
    #expect(upstream.requests == [.demand(.max(8))])
    #expect(recorder.violations.isEmpty)
    #expect(upstream.violations.isEmpty)
  }

  @Test func demandNone_requestsNothingUpstream() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    upstream.collect(3).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(3))])
    #expect(reduceTrace(recorder) == ["subscription"])
  }

  @Test func demandOfOne_toppedUpFromReceive_forwardedMultiplied() {
    let recorder = RecordingSubscriber<[Int], TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.collect(2).subscribe(recorder)
    for value in 1...5 { upstream.send(value) }
    upstream.send(completion: .finished)
    #expect(recorder.values == [[1, 2], [3, 4], [5]])
    #expect(recorder.completion == .finished)
    #expect(upstream.violations.isEmpty)
    #expect(recorder.violations.isEmpty)
  }

  @Test func unlimitedDemand_forwardedAsUnlimited() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(3).subscribe(recorder)
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func demandTimesCountOverflows_forwardedAsUnlimited() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(Int.max / 2))
    upstream.collect(3).subscribe(recorder)
    #expect(upstream.requests == [.demand(.unlimited)])

    let huge = TestPublisher<Int, TestError>()
    let second = RecordingSubscriber<[Int], TestError>(initialDemand: .max(2))
    huge.collect(Int.max).subscribe(second)
    #expect(huge.requests == [.demand(.unlimited)])
  }

  @Test func requestFromReceive_forwardedMultiplied() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.collect(2).subscribe(recorder)
    holder.subscription = recorder.subscription
    for value in 1...4 { upstream.send(value) }
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(2)), .demand(.max(2))])
    #expect(recorder.values == [[1, 2], [3, 4]])
  }

  @Test func emptyBufferOnFinish_onlyFinishes() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: .max(1))
    upstream.collect(2).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription", "[1, 2]", "finished"])
  }

  @Test func finishWithoutDemand_completesAtOnce() {
    let recorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    upstream.collect(2).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription", "finished"])
  }

  @Test func upstreamFailsBeforeAndAfterValues_dropsPartialArray() {
    let before = RecordingSubscriber<[Int], TestError>()
    upstream.collect(2).subscribe(before)
    let other = TestPublisher<Int, TestError>()
    let after = RecordingSubscriber<[Int], TestError>()
    other.collect(2).subscribe(after)
    upstream.send(completion: .failure(TestError()))
    for value in 1...3 { other.send(value) }
    other.send(completion: .failure(TestError()))
    #expect(reduceTrace(before) == ["subscription", "failure(Boom)"])
    #expect(reduceTrace(after) == ["subscription", "[1, 2]", "failure(Boom)"])
  }

  @Test func overfillingUpstream_extraArraysWaitForDemand() {
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: nil)
    Overfill(values: [1, 2, 3, 4, 5]).collect(2).subscribe(recorder)
    #expect(reduceTrace(recorder) == ["subscription"])
    recorder.request(.max(1))
    #expect(recorder.values == [[1, 2]])
    recorder.request(.max(1))
    #expect(reduceTrace(recorder) == ["subscription", "[1, 2]", "[3, 4]"])
    recorder.request(.max(1))
    #expect(reduceTrace(recorder) == ["subscription", "[1, 2]", "[3, 4]", "[5]", "finished"])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelBeforeDuringAfter_nothingMoreArrives() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(2).subscribe(recorder)
    upstream.send(1)
    let subscription = recorder.subscription
    recorder.cancel()
    subscription?.cancel()
    subscription?.request(.max(1))
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription"])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])

    let early = TestPublisher<Int, TestError>()
    let earlyRecorder = RecordingSubscriber<[Int], TestError>(initialDemand: nil)
    early.collect(2).subscribe(earlyRecorder)
    earlyRecorder.cancel()
    #expect(early.requests == [.cancel])

    let late = TestPublisher<Int, TestError>()
    let lateRecorder = RecordingSubscriber<[Int], TestError>()
    late.collect(2).subscribe(lateRecorder)
    let lateSubscription = lateRecorder.subscription
    late.send(completion: .finished)
    lateSubscription?.cancel()
    #expect(late.requests == [.demand(.unlimited)])
    #expect(reduceTrace(lateRecorder) == ["subscription", "finished"])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    Overfill(values: [1, 2, 3, 4]).collect(2).subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.max(2))
    #expect(reduceTrace(recorder) == ["subscription", "[1, 2]"])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(2).subscribe(recorder)
    weak let cancelled = recorder.subscription.map { $0 as AnyObject }
    #expect(cancelled != nil)
    recorder.cancel()
    #expect(cancelled == nil)

    let finishing = TestPublisher<Int, TestError>()
    let finishedRecorder = RecordingSubscriber<[Int], TestError>()
    finishing.collect(2).subscribe(finishedRecorder)
    weak let completed = finishedRecorder.subscription.map { $0 as AnyObject }
    #expect(completed != nil)
    finishing.send(1)
    finishing.send(completion: .finished)
    #expect(finishedRecorder.values == [[1]])
    #expect(completed == nil)
    withExtendedLifetime((recorder, finishing, finishedRecorder)) {}
  }

  @Test func subscription_describedAsCollectByCount() {
    let recorder = RecordingSubscriber<[Int], TestError>()
    upstream.collect(2).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "CollectByCount")
  }

  @Test func concurrentRequests_deliverEveryArrayOnceInOrder() {
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: nil)
    Array(0..<1_000).publisher.collect(2).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
      for _ in 0..<250 { recorder.request(.max(1)) }
    }
    #expect(recorder.values == (0..<500).map { [2 * $0, 2 * $0 + 1] })
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func countZero_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Empty<Int, Never>().collect(0)
    }
    expectTrap(trap1, "collect(_:): count must be greater than zero, got 0")
  }

  @Test func requestNone_traps() async {
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<[Int], Never>(initialDemand: nil)
      Record<Int, Never>(output: [1], completion: .finished).collect(2).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap2, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func collectByCount_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3, 4, 5], completion: .finished)
          .collect(2)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(
          output: [1, 2, 3],
          completion: .failure(TestError())
        )
        .collect(2)
        .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: Array(0..<1_000_000))
          .collect(1)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}

/// A publisher that ignores demand and sends all its values, then finishes, as soon as it is
/// subscribed: it sends more arrays' worth than requested on purpose.
private struct Overfill: Publisher {
  typealias Output = Int
  typealias Failure = Never
  let values: [Int]

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(subscription: OverfillSubscription())
    for value in values {
      _ = subscriber.receive(value)
    }
    subscriber.receive(completion: .finished)
  }
}

private final class OverfillSubscription: Subscription {
  func request(_ demand: Subscribers.Demand) {}
  func cancel() {}
}
