import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct ResultPublisherTests {
  @Test func successWithDemand_sendsTheValueThenFinishes() {
    let recorder = Recorder<Int, TestError>()
    Result<Int, TestError>.success(3).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Once"), .value(3), .completion(.finished)])
  }

  @Test func successWithoutDemand_waitsForTheFirstRequest() {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    Result<Int, TestError>.Publisher(3).subscribe(recorder)
    #expect(recorder.events == [.subscription("Once")])
    recorder.request(.max(1))
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription("Once"), .value(3), .completion(.finished)])
  }

  @Test func failure_isSentAtOnceWithoutDemand() {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    Result<Int, TestError>.failure(TestError(code: 5)).publisher.subscribe(recorder)
    #expect(
      recorder.events == [.subscription("Empty"), .completion(.failure(TestError(code: 5)))]
    )
  }

  @Test func failureInitializer_fails() {
    let recorder = Recorder<Int, TestError>()
    Result<Int, TestError>.Publisher(TestError(code: 6)).subscribe(recorder)
    #expect(recorder.completions == [.failure(TestError(code: 6))])
    #expect(recorder.values.isEmpty)
  }

  @Test func requestFromInsideReceive_doesNotSendTwice() {
    let recorder = Recorder<Int, TestError>(
      initialDemand: .max(1),
      onValue: { recorder, _ in recorder.request(.max(1)) }
    )
    Result<Int, TestError>.success(3).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Once"), .value(3), .completion(.finished)])
  }

  @Test func cancelInsideReceive_preventsTheCompletion() {
    let recorder = Recorder<Int, TestError>(onValue: { recorder, _ in recorder.cancel() })
    Result<Int, TestError>.success(3).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Once"), .value(3)])
  }

  @Test func cancelBeforeRequest_sendsNothing() {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    Result<Int, TestError>.success(3).publisher.subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription("Once")])
  }

  @Test func subscription_describesItselfAsOnce() throws {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    Result<Int, TestError>.success(3).publisher.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Once")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "Once"
    )
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == [nil])
    #expect(mirror.children.first?.value as? Int == 3)
  }

  @Test func cancel_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, TestError>?
    do {
      let recorder = Recorder<Int, TestError>(initialDemand: nil)
      weakRecorder = recorder
      Result<Int, TestError>.success(3).publisher.subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func completion_releasesTheSubscriber() {
    weak var weakKeeper: Keeper?
    var subscription: (any Subscription)?
    do {
      let keeper = Keeper()
      weakKeeper = keeper
      Result<Int, TestError>.success(3).publisher.subscribe(keeper)
      #expect(keeper.values == [3])
      subscription = keeper.subscription
    }
    #expect(subscription != nil)
    #expect(weakKeeper == nil)
  }

  @Test func equalResults_areEqual() {
    typealias Once = Result<Int, TestError>.Publisher
    #expect(Once(1) == Once(.success(1)))
    #expect(Once(1) != Once(2))
    #expect(Once(TestError()) == Once(.failure(TestError())))
    #expect(Once(1).result == .success(1))
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = Recorder<Int, TestError>(initialDemand: nil)
      Result<Int, TestError>.success(3).publisher.subscribe(recorder)
      recorder.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }
}

/// Keeps its subscription after the completion, so a test can see whether the subscription
/// still holds on to it.
private final class Keeper: Subscriber {
  typealias Input = Int
  typealias Failure = TestError

  private(set) var subscription: (any Subscription)?
  private(set) var values: [Int] = []

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<TestError>) {}
}
