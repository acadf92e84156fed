import Dispatch
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct JustTests {
  @Test func unlimitedDemand_sendsTheValueThenFinishes() {
    let recorder = Recorder<Int, Never>()
    Just(42).subscribe(recorder)
    #expect(recorder.events == [.subscription("Just"), .value(42), .completion(.finished)])
  }

  @Test func maxOneDemand_sendsTheValueThenFinishes() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    Just(42).subscribe(recorder)
    #expect(recorder.events == [.subscription("Just"), .value(42), .completion(.finished)])
  }

  @Test func noDemand_sendsNothingUntilRequested() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Just(42).subscribe(recorder)
    #expect(recorder.events == [.subscription("Just")])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription("Just"), .value(42), .completion(.finished)])
  }

  @Test func secondRequest_sendsNothingMore() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Just(42).subscribe(recorder)
    let subscription = recorder.subscription
    subscription?.request(.max(1))
    subscription?.request(.unlimited)
    #expect(recorder.events == [.subscription("Just"), .value(42), .completion(.finished)])
  }

  @Test func requestFromInsideReceive_doesNotSendTwice() {
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(1),
      onValue: { recorder, _ in recorder.request(.max(1)) }
    )
    Just(42).subscribe(recorder)
    #expect(recorder.events == [.subscription("Just"), .value(42), .completion(.finished)])
  }

  @Test func demandReturnedFromReceive_isIgnoredAfterTheOnlyValue() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(5) })
    Just(42).subscribe(recorder)
    #expect(recorder.events == [.subscription("Just"), .value(42), .completion(.finished)])
  }

  @Test func cancelBeforeRequest_sendsNothing() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Just(42).subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription("Just")])
  }

  @Test func cancelInsideReceive_preventsTheCompletion() {
    let recorder = Recorder<Int, Never>(onValue: { recorder, _ in recorder.cancel() })
    Just(42).subscribe(recorder)
    #expect(recorder.events == [.subscription("Just"), .value(42)])
  }

  @Test func eachSubscriber_getsItsOwnSubscription() {
    let just = Just("a")
    let first = Recorder<String, Never>()
    let second = Recorder<String, Never>(initialDemand: nil)
    just.subscribe(first)
    just.subscribe(second)
    #expect(first.values == ["a"])
    #expect(second.events == [.subscription("Just")])
  }

  @Test func subscription_describesItselfAsJust() throws {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Just(7).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Just")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?
        .playgroundDescription as? String == "Just"
    )
    // As Combine's: the value, unlabelled, also once the subscription ended.
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == [nil])
    #expect(mirror.children.first?.value as? Int == 7)
    subscription.cancel()
    #expect(Mirror(reflecting: subscription).children.first?.value as? Int == 7)
  }

  @Test func completion_releasesTheSubscriber() {
    weak var weakKeeper: Keeper<Int>?
    var subscription: (any Subscription)?
    do {
      let keeper = Keeper<Int>(demand: .max(1))
      weakKeeper = keeper
      Just(1).subscribe(keeper)
      subscription = keeper.subscription
      #expect(keeper.values == [1])
    }
    #expect(subscription != nil)
    #expect(weakKeeper == nil)
  }

  @Test func cancel_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, Never>?
    do {
      let recorder = Recorder<Int, Never>(initialDemand: nil)
      weakRecorder = recorder
      Just(1).subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func cancelInsideReceive_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, Never>?
    do {
      let recorder = Recorder<Int, Never>(onValue: { recorder, _ in recorder.cancel() })
      weakRecorder = recorder
      Just(1).subscribe(recorder)
      #expect(recorder.subscription != nil)
    }
    #expect(weakRecorder == nil)
  }

  @Test func concurrentRequests_sendTheValueOnce() {
    for _ in 0..<100 {
      let recorder = Recorder<Int, Never>(initialDemand: nil)
      Just(1).subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 4) { _ in recorder.request(.max(1)) }
      #expect(recorder.events == [.subscription("Just"), .value(1), .completion(.finished)])
    }
  }

  /// Several threads request and cancel at once (the phase is one atomic, with no lock): the
  /// value goes at most once, the completion only after it, and the subscriber is let go.
  @Test func concurrentRequestsAndCancels_deliverAtMostOnceAndReleaseTheSubscriber() {
    var outcomes: Set<Int> = []
    for round in 0..<2_000 {
      weak var weakRecorder: Recorder<Int, Never>?
      var events: [Event<Int, Never>] = []
      do {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        weakRecorder = recorder
        Just(round).subscribe(recorder)
        DispatchQueue.concurrentPerform(iterations: 4) { index in
          if index % 2 == (round % 2) {
            recorder.request(.max(1))
          } else {
            recorder.cancel()
          }
        }
        events = recorder.events
      }
      let valid: [[Event<Int, Never>]] = [
        [.subscription("Just")],
        [.subscription("Just"), .value(round)],
        [.subscription("Just"), .value(round), .completion(.finished)],
      ]
      #expect(valid.contains(events), "round \(round): \(events)")
      outcomes.insert(events.count)
      #expect(weakRecorder == nil, "round \(round): the subscriber is still held")
    }
    #expect(!outcomes.isEmpty)
  }

  @Test func equalOutputs_areEqual() {
    #expect(Just(1) == Just(1))
    #expect(Just(1) != Just(2))
    #expect(Just("x").output == "x")
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = Recorder<Int, Never>(initialDemand: nil)
      Just(1).subscribe(recorder)
      recorder.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }
}

/// Keeps its subscription after the completion, so a test can see whether the subscription
/// still holds on to it.
private final class Keeper<Input>: Subscriber {
  typealias Failure = Never

  private(set) var subscription: (any Subscription)?
  private(set) var values: [Input] = []
  private let demand: Subscribers.Demand

  init(demand: Subscribers.Demand) {
    self.demand = demand
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(demand)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}
