import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryDropWhileTests {

  struct Thrown: Error, Equatable {}

  let upstream = TestPublisher<Int, TestError>()

  private func belowThree(_ value: Int) throws -> Bool {
    if value < 0 { throw Thrown() }
    return value < 3
  }

  @Test func tryDropWhile_dropsLeadingValuesThenPassesAll() {
    let recorder = RecordingSubscriber<Int, any Error>()
    [1, 2, 5, -1].publisher.tryDrop(while: belowThree).subscribe(recorder)
    #expect(recorder.values == [5, -1])
    guard case .finished? = recorder.completion else {
      Issue.record("expected .finished, got \(String(describing: recorder.completion))")
      return
    }
  }

  @Test func throwingPredicate_cancelsUpstreamAndFails() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    upstream.send(1)
    upstream.send(-1)
    upstream.send(5)
    #expect(recorder.values.isEmpty)
    guard case .failure(let error)? = recorder.completion else {
      Issue.record("expected a failure, got \(String(describing: recorder.completion))")
      return
    }
    #expect(error is Thrown)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func upstreamFailure_isPassedOnAsAnyError() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    upstream.send(4)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.values == [4])
    guard case .failure(let error)? = recorder.completion else {
      Issue.record("expected a failure, got \(String(describing: recorder.completion))")
      return
    }
    #expect(error as? TestError == TestError())
  }

  @Test func upstreamFinishesWhileDropping_finishes() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.values.isEmpty)
    guard case .finished? = recorder.completion else {
      Issue.record("expected .finished, got \(String(describing: recorder.completion))")
      return
    }
  }

  @Test func droppedValues_requestOneMoreEach() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(1))
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(1))])
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(3)
    #expect(recorder.values == [3])
    #expect(upstream.outstandingDemand == .none)
  }

  @Test func demandNone_requestsNothingUntilAsked() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(2))
    #expect(upstream.requests == [.demand(.max(2))])
  }

  @Test func demandToppedUpFromReceive_deliversEveryValue() {
    let recorder = RecordingSubscriber<Int, any Error>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    for value in 1...5 { upstream.send(value) }
    #expect(recorder.values == [3, 4, 5])
    #expect(upstream.violations.isEmpty)
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, any Error> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    holder.subscription = recorder.subscription
    for value in 1...5 { upstream.send(value) }
    #expect(recorder.values == [3])
    #expect(recorder.completion == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelBeforeValues_deliversNothing() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    recorder.cancel()
    upstream.send(-1)
    upstream.send(completion: .finished)
    #expect(recorder.values.isEmpty)
    #expect(recorder.completion == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_isReleasedAfterFailure() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    upstream.send(-1)
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, any Error>()
      upstream.tryDrop(while: belowThree).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func description_isTryDropWhile() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryDrop(while: belowThree).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "TryDropWhile")
  }

  @Test func tryDropWhile_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [0, 1, 5, 0, 6].publisher.tryDrop(while: { $0 < 3 }).eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        [0, 1, 5, 0, 6].publisher
          .tryDrop(while: { value in
            if value == 1 { throw Thrown() }
            return value < 3
          })
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        (0..<1_000_010).publisher.tryDrop(while: { $0 < 10 }).eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
