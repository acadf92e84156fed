import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DiscardTests {
  @Test func firstValuesDropped() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 3, 4].publisher.discard(first: 2).subscribe(recorder)
    #expect(recorder.values == [3, 4])
    #expect(recorder.completion == .finished)
  }

  @Test func replayedValueCounts() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let recorder = RecordingSubscriber<Int, Never>()
    subject.discard(first: 1).subscribe(recorder)
    subject.send(5)
    #expect(recorder.values == [5])
  }

  @Test func conformance() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [0, 1, 2, 3].publisher.discard(first: 1) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}
