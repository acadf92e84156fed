import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ThenDoTests {
  @Test func values_actionRunsAndValuesPassOn() {
    var seen: [Int] = []
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 3].publisher.then(do: { seen.append($0) }).subscribe(recorder)
    #expect(seen == [1, 2, 3])
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
  }

  @Test func actionRunsBeforeDownstream() {
    var log: [String] = []
    let cancellable = Just(1).then(do: { log.append("action \($0)") }).sink {
      log.append("sink \($0)")
    }
    #expect(log == ["action 1", "sink 1"])
    cancellable.cancel()
  }

  @Test func demandPassesThrough() {
    let upstream = TestPublisher<Int, SwiftyTestError>()
    let recorder = RecordingSubscriber<Int, SwiftyTestError>(initialDemand: .max(1))
    var seen: [Int] = []
    upstream.then(do: { seen.append($0) }).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(1))])
    upstream.send(1)
    upstream.send(completion: .failure(SwiftyTestError()))
    #expect(seen == [1])
    #expect(recorder.completion == .failure(SwiftyTestError()))
  }

  @Test func conformance() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Int, SwiftyTestError>(output: [1, 2, 3], completion: .finished).then(do: { _ in })
      },
      makeFailingPublisher: {
        Record<Int, SwiftyTestError>(output: [1], completion: .failure(SwiftyTestError())).then(
          do: { _ in })
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}
