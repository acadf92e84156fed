import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ThenCallTests {
  @Test func liveTarget_methodCalledAndValuesPassOn() {
    let target = SwiftyTarget()
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2].publisher.then(call: SwiftyTarget.update, on: target).subscribe(recorder)
    #expect(target.received == [1, 2])
    #expect(recorder.values == [1, 2])
  }

  @Test func targetGone_callSkippedButValuesStillPass() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    var target: SwiftyTarget? = SwiftyTarget()
    weak let weakTarget = target
    subject.then(call: SwiftyTarget.update, on: target!).subscribe(recorder)
    subject.send(1)
    #expect(target?.received == [1])
    target = nil
    #expect(weakTarget == nil)
    subject.send(2)
    #expect(recorder.values == [1, 2])
    #expect(recorder.completion == nil)
  }

  @Test func demandPassesThrough() {
    let upstream = TestPublisher<Int, Never>()
    let target = SwiftyTarget()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.then(call: SwiftyTarget.update, on: target).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2))])
  }

  @Test func conformance() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.then(call: SwiftyTarget.update, on: SwiftyTarget()) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}
