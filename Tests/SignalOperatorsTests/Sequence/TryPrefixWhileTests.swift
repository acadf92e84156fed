import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryPrefixWhileTests {
  @Test func valueBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: 1).tryPrefix { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryPrefixWhile: the upstream sent a value before its subscription")
  }

  @Test func completionBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: nil).tryPrefix { $0 > 0 }
        .subscribe(RecordingSubscriber<Int, any Error>())
    }
    expectTrap(trap, "TryPrefixWhile: the upstream sent a completion before its subscription")
  }

  struct Thrown: Error, Equatable {}

  let upstream = TestPublisher<Int, TestError>()

  private func belowThree(_ value: Int) throws -> Bool {
    if value < 0 { throw Thrown() }
    return value < 3
  }

  @Test func tryPrefixWhile_passesLeadingValuesThenFinishes() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [1, 2])
    guard case .finished? = recorder.completion else {
      Issue.record("expected .finished, got \(String(describing: recorder.completion))")
      return
    }
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func throwingPredicate_cancelsUpstreamAndFails() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    upstream.send(1)
    upstream.send(-1)
    upstream.send(2)
    #expect(recorder.values == [1])
    guard case .failure(let error)? = recorder.completion else {
      Issue.record("expected a failure, got \(String(describing: recorder.completion))")
      return
    }
    #expect(error is Thrown)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func upstreamFailure_isPassedOnAsAnyError() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    guard case .failure(let error)? = recorder.completion else {
      Issue.record("expected a failure, got \(String(describing: recorder.completion))")
      return
    }
    #expect(error as? TestError == TestError())
  }

  @Test func demandNone_requestsNothingUntilAsked() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func demandToppedUpFromReceive_deliversEveryValue() {
    let recorder = RecordingSubscriber<Int, any Error>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    for value in 0...2 { upstream.send(value) }
    #expect(recorder.values == [0, 1, 2])
    #expect(upstream.violations.isEmpty)
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, any Error> { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(-1)
    #expect(recorder.values == [1])
    #expect(recorder.completion == nil)
  }

  @Test func cancelBeforeValues_deliversNothing() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_isReleasedAfterFailure() {
    weak var inner: AnyObject?
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    inner = recorder.subscription as AnyObject?
    #expect(inner != nil)
    upstream.send(-1)
    #expect(inner == nil)
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, any Error>()
      upstream.tryPrefix(while: belowThree).subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      #expect(inner != nil)
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func description_isTryPrefixWhile() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryPrefix(while: belowThree).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "TryPrefixWhile")
  }

  @Test func tryPrefixWhile_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [0, 1, 2, 3, 0].publisher.tryPrefix(while: { $0 < 3 }).eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        [0, 1, 2, 3, 0].publisher
          .tryPrefix(while: { value in
            if value == 2 { throw Thrown() }
            return true
          })
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        (0..<1_000_010).publisher.tryPrefix(while: { $0 < 1_000_000 }).eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
