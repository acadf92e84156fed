import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct OptionalPublisherTests {
  @Test func someWithDemand_sendsTheValueThenFinishes() {
    let recorder = Recorder<Int, Never>()
    Optional(5).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Optional"), .value(5), .completion(.finished)])
  }

  @Test func none_sendsEmptySubscriptionAndFinishesWithoutDemand() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Int?.none.publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.finished)])
  }

  @Test func someWithoutDemand_waitsForTheFirstRequest() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Optional.Publisher(5).subscribe(recorder)
    #expect(recorder.events == [.subscription("Optional")])
    recorder.request(.max(1))
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription("Optional"), .value(5), .completion(.finished)])
  }

  @Test func requestFromInsideReceive_doesNotSendTwice() {
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(1),
      demandPerValue: { _ in .max(1) },
      onValue: { recorder, _ in recorder.request(.max(1)) }
    )
    Optional(5).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Optional"), .value(5), .completion(.finished)])
  }

  @Test func cancelInsideReceive_preventsTheCompletion() {
    let recorder = Recorder<Int, Never>(onValue: { recorder, _ in recorder.cancel() })
    Optional(5).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Optional"), .value(5)])
  }

  @Test func cancelBeforeRequest_sendsNothing() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Optional(5).publisher.subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription("Optional")])
  }

  @Test func subscription_describesItselfAsOptional() throws {
    let recorder = Recorder<String, Never>(initialDemand: nil)
    Optional("a").publisher.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Optional")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "Optional"
    )
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == [nil])
    #expect(mirror.children.first?.value as? String == "a")
  }

  @Test func cancel_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, Never>?
    do {
      let recorder = Recorder<Int, Never>(initialDemand: nil)
      weakRecorder = recorder
      Optional(1).publisher.subscribe(recorder)
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
      Optional(1).publisher.subscribe(keeper)
      #expect(keeper.values == [1])
      subscription = keeper.subscription
    }
    #expect(subscription != nil)
    #expect(weakKeeper == nil)
  }

  @Test func equalOutputs_areEqual() {
    #expect(Optional(1).publisher == Optional.Publisher(1))
    #expect(Optional(1).publisher != Optional.Publisher(nil))
    #expect(Optional(1).publisher.output == 1)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = Recorder<Int, Never>(initialDemand: nil)
      Optional(1).publisher.subscribe(recorder)
      recorder.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }
}

/// Keeps its subscription after the completion, so a test can see whether the subscription
/// still holds on to it.
private final class Keeper: Subscriber {
  typealias Input = Int
  typealias Failure = Never

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

  func receive(completion: Subscribers.Completion<Never>) {}
}
