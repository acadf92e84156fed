import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DistinctTests {
  @Test func repeatsOfTheLastPassedValueDropped() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 1, 2, 2, 1, 3, 3].publisher.distinct().subscribe(recorder)
    #expect(recorder.values == [1, 2, 1, 3])
  }

  @Test func equatableOnly_noComparableNeeded() {
    struct Point: Equatable { let x: Int }
    var seen: [Point] = []
    let cancellable = [Point(x: 1), Point(x: 1), Point(x: 2)].publisher.distinct().sink {
      seen.append($0)
    }
    #expect(seen == [Point(x: 1), Point(x: 2)])
    cancellable.cancel()
  }

  @Test func conformance() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 1, 2, 3, 3].publisher.distinct() }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}
