import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CurrentValueRelayTests {
  let relay = CurrentValueRelay("initial")

  @Test func subscriber_getsTheCurrentValueThenEachAcceptedOne() {
    let recorder = RecordingSubscriber<String, Never>()
    relay.subscribe(recorder)
    relay.accept("1")
    relay.accept("2")
    #expect(recorder.events == [.subscription, .value("initial"), .value("1"), .value("2")])
    #expect(relay.value == "2")
    #expect(recorder.subscriptionDescription == "CurrentValueSubject")
  }

  @Test func value_isTheLatestAccepted() {
    #expect(relay.value == "initial")
    relay.accept("next")
    #expect(relay.value == "next")
  }

  @Test func noDemand_keepsOnlyTheLatestForTheSubscriber() {
    let recorder = RecordingSubscriber<String, Never>(initialDemand: nil)
    relay.subscribe(recorder)
    relay.accept("1")
    relay.accept("2")
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.values == ["2"])
    recorder.request(.max(5))
    relay.accept("3")
    #expect(recorder.values == ["2", "3"])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_stopsDeliveryAndReleasesTheSubscriber() {
    weak var weakRecorder: RecordingSubscriber<String, Never>?
    do {
      let recorder = RecordingSubscriber<String, Never>()
      weakRecorder = recorder
      relay.subscribe(recorder)
      recorder.cancel()
      relay.accept("after")
      #expect(recorder.values == ["initial"])
    }
    #expect(weakRecorder == nil)
  }

  @Test func deinit_finishesSubscribers_andReleasesTheValue() {
    final class Payload {}
    weak var weakPayload: Payload?
    let recorder = RecordingSubscriber<Payload, Never>()
    do {
      let payload = Payload()
      weakPayload = payload
      let relay = CurrentValueRelay(payload)
      relay.subscribe(recorder)
    }
    #expect(recorder.values.count == 1)
    #expect(recorder.completion == .finished)
    #expect(weakPayload != nil)  // the recorder keeps it
    recorder.cancel()
  }

  @Test func concurrentAcceptAndSubscribeCancel_neverExceedsDemandOrOverlaps() {
    let relay = CurrentValueRelay(0)
    let watchers = (0..<4).map { _ in RecordingSubscriber<Int, Never>() }
    for watcher in watchers { relay.subscribe(watcher) }
    let limited = RecordingSubscriber<Int, Never>(initialDemand: .max(10))
    relay.subscribe(limited)
    DispatchQueue.concurrentPerform(iterations: 6) { index in
      switch index {
      case ..<4:
        for step in 1...500 { relay.accept(index * 1_000 + step) }
      case 4:
        for _ in 0..<200 {
          let passer = RecordingSubscriber<Int, Never>()
          relay.subscribe(passer)
          passer.cancel()
          #expect(passer.violations.allSatisfy { $0.hasSuffix("after cancel") })
        }
      default:
        for _ in 0..<200 { _ = relay.value }
      }
    }
    for watcher in watchers {
      let values = watcher.values
      #expect(values.count == 2_001)
      for sender in 0..<4 {
        let own = values.filter { $0 / 1_000 == sender && $0 != 0 }
        #expect(own == own.sorted())
        #expect(own.count == 500)
      }
      #expect(watcher.violations.isEmpty)
    }
    #expect(limited.values.count == 10)
    #expect(limited.violations.isEmpty)
  }

  @Test func relay_conforms() {
    // A relay never finishes while it exists, so the kit sees its current value and then the
    // finish of `prefix(1)`; the relay lives as long as the subscription (the closure holds it).
    // The rules that need several values are covered by the subjects' own conformance.
    PublisherConformance(
      elements: 1,
      makePublisher: { () -> AnyPublisher<Int, Never> in
        let relay = CurrentValueRelay(7)
        return relay.handleEvents(receiveCancel: { withExtendedLifetime(relay) {} })
          .prefix(1)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
  }
}
