import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PassthroughRelayTests {
  let relay = PassthroughRelay<Int>()

  @Test func accept_reachesEverySubscriberWithDemand() {
    let first = RecordingSubscriber<Int, Never>()
    let second = RecordingSubscriber<Int, Never>()
    relay.subscribe(first)
    relay.accept(1)
    relay.subscribe(second)
    relay.accept(2)
    #expect(first.events == [.subscription, .value(1), .value(2)])
    #expect(second.events == [.subscription, .value(2)])
    #expect(first.subscriptionDescription == "PassthroughSubject")
  }

  @Test func limitedDemand_isNeverExceeded_extraValuesAreDropped() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    relay.subscribe(recorder)
    for value in 1...5 { relay.accept(value) }
    #expect(recorder.values == [1, 2])
    recorder.request(.max(1))
    relay.accept(6)
    #expect(recorder.values == [1, 2, 6])
    #expect(recorder.violations.isEmpty)
  }

  // Item 4 of issue 39: a relay subscribed to a current-value subject asks it for values only
  // once the relay has a subscriber with demand, as a Combine subject would, so the subject's
  // value reaches that subscriber (CombineExt's `testSubscribeRelay_CurrentValueToPassthrough`).
  @Test func subscribedToACurrentValueSubject_itsValueReachesALaterSubscriber() {
    let subject = CurrentValueSubject<Int, Never>(10)
    let token = subject.subscribe(relay)
    let recorder = RecordingSubscriber<Int, Never>()
    relay.subscribe(recorder)
    subject.send(11)
    #expect(recorder.events == [.subscription, .value(10), .value(11)])
    token.cancel()
  }

  @Test func linkedFromACurrentValueRelay_itsValueReachesALaterSubscriber() {
    let input = CurrentValueRelay(1)
    let token = input.subscribe(relay)
    let recorder = RecordingSubscriber<Int, Never>()
    relay.subscribe(recorder)
    input.accept(2)
    input.accept(3)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == nil)
    token.cancel()
  }

  @Test func voidRelay_acceptWithoutArgument() {
    let ticks = PassthroughRelay<Void>()
    let recorder = RecordingSubscriber<Void, Never>()
    ticks.subscribe(recorder)
    ticks.accept()
    ticks.accept()
    #expect(recorder.values.count == 2)
  }

  @Test func cancel_stopsDeliveryAndReleasesTheSubscriber() {
    weak var weakRecorder: RecordingSubscriber<Int, Never>?
    do {
      let recorder = RecordingSubscriber<Int, Never>()
      weakRecorder = recorder
      relay.subscribe(recorder)
      relay.accept(1)
      recorder.cancel()
      relay.accept(2)
      #expect(recorder.values == [1])
    }
    #expect(weakRecorder == nil)
  }

  @Test func deinit_finishesSubscribersAndReleasesThem() {
    weak var weakRecorder: RecordingSubscriber<Int, Never>?
    var relay: PassthroughRelay<Int>? = PassthroughRelay()
    do {
      let recorder = RecordingSubscriber<Int, Never>()
      weakRecorder = recorder
      relay?.subscribe(recorder)
      relay?.accept(1)
      relay = nil
      #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    }
    #expect(weakRecorder == nil)
  }

  @Test func neverFinishesWhileAlive() {
    let recorder = RecordingSubscriber<Int, Never>()
    relay.subscribe(recorder)
    relay.accept(1)
    #expect(recorder.completion == nil)
  }

  @Test func relay_conforms() {
    // A relay finishes its subscribers when it goes away: a relay made for one subscription
    // and dropped at once is a publisher of no values, then the finish. The rules that need
    // values are covered by `CurrentValueRelayTests.relay_conforms`.
    PublisherConformance(
      elements: 0,
      makePublisher: { Deferred { PassthroughRelay<Int>() } }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
  }
}
