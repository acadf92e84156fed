import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DropWhileTests {

  // Differential oracle (issue 15): `drop(while:) - late F0 S0`. As Combine: a completion sent before
  // the subscription is ignored, and the subscription that follows is used as usual.
  @Test func completionBeforeSubscription_isIgnored() {
    let probe = SubscriptionProbe()
    let recorder = RecordingSubscriber<Int, Never>()
    LateSubscriptionPublisher<Int>(value: nil, subscription: probe).drop(while: { $0 < 5 })
      .subscribe(recorder)
    #expect(recorder.events == [.subscription])
    #expect(probe.requested == [.unlimited])
    #expect(!probe.cancelled)
  }

  // Differential oracle (issue 15), K041: `drop(while:) - late V0.1`. As Combine: a value
  // before the subscription is ignored (not judged, no demand returned for it).
  @Test func valueBeforeSubscription_isIgnored() {
    let probe = SubscriptionProbe()
    let recorder = RecordingSubscriber<Int, Never>()
    var judged: [Int] = []
    LateSubscriptionPublisher(value: 1, subscription: probe)
      .drop(while: {
        judged.append($0)
        return $0 < 5
      })
      .subscribe(recorder)
    #expect(judged.isEmpty)
    #expect(recorder.events == [.subscription])
    #expect(probe.requested == [.unlimited])
  }

  let upstream = TestPublisher<Int, TestError>()

  @Test func dropWhile_dropsLeadingValuesThenPassesAll() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 5, 1, 7].publisher.drop(while: { $0 < 3 }).subscribe(recorder)
    #expect(
      recorder.events == [.subscription, .value(5), .value(1), .value(7), .completion(.finished)]
    )
  }

  @Test func predicate_isNotCalledAfterItFails() {
    let calls = CallCounter()
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 5, 1, 1].publisher.drop(while: {
      calls.increment()
      return $0 < 3
    }).subscribe(recorder)
    #expect(calls.value == 2)
    #expect(recorder.values == [5, 1, 1])
  }

  @Test func demandNone_requestsNothingUntilAsked() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func droppedValues_requestOneMoreEach() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(3)
    upstream.send(4)
    #expect(recorder.values == [3])
    #expect(upstream.violations == ["sent 4 while demand was none"])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandToppedUpFromReceive_deliversEveryValue() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    for value in 1...5 { upstream.send(value) }
    #expect(recorder.values == [3, 4, 5])
    #expect(upstream.violations.isEmpty)
  }

  @Test func requestFromReceive_isPassedUpstream() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1)) { _ in
      holder.subscription?.request(.max(3))
      return .none
    }
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(3)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(3))])
  }

  @Test func upstreamFinishesWhileDropping_finishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func upstreamFailsBeforeValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func upstreamFailsAfterValues_fails() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    upstream.send(4)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(4), .completion(.failure(TestError()))])
  }

  @Test func cancelBeforeValues_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    recorder.cancel()
    upstream.send(5)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelFromPredicate_stopsBeforeTheValueIsDelivered() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { value in
      holder.subscription?.cancel()
      return value < 3
    })
    .subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(5)
    #expect(recorder.events == [.subscription])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, TestError> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    holder.subscription = recorder.subscription
    for value in 1...5 { upstream.send(value) }
    #expect(recorder.values == [3])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    let subscription = recorder.subscription
    upstream.send(completion: .finished)
    subscription?.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func predicate_isReleasedAfterCancel() {
    weak var captured: CallCounter?
    let recorder = RecordingSubscriber<Int, TestError>()
    do {
      let counter = CallCounter()
      captured = counter
      upstream.drop(while: { _ in counter.increment() < 5 }).subscribe(recorder)
    }
    #expect(captured != nil)
    recorder.cancel()
    #expect(captured == nil)
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.drop(while: { $0 < 3 }).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterCompletion() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    upstream.send(completion: .finished)
    #expect(inner == nil)
  }

  @Test func description_isDropWhile() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.drop(while: { $0 < 3 }).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "DropWhile")
  }

  @Test func dropWhile_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [0, 1, 5, 0, 6]).drop(while: { $0 < 3 })
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 4], completion: .failure(TestError())).drop(while: {
          $0 < 3
        })
        .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<1_000_010).drop(while: { $0 < 10 })
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
