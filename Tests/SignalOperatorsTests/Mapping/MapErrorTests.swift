import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MapErrorTests {
  private struct Wrapped: Error, Equatable {
    let inner: TestError
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, TestError>) in
      upstream.mapError { Wrapped(inner: $0) }
    },
    inputs: [1, 2, 3],
    expected: ["1", "2", "3"],
    error: nil,
    description: "TestPublisher"
  )

  @Test func values_passThrough() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func upstreamFailure_isConverted_beforeAndAfterValues() {
    for sendValues in [false, true] {
      let upstream = TestPublisher<Int, TestError>()
      let recorder = RecordingSubscriber<Int, Wrapped>()
      upstream.mapError { Wrapped(inner: $0) }.subscribe(recorder)
      if sendValues { upstream.send(7) }
      upstream.send(completion: .failure(TestError(code: 3)))
      let values: [RecordingSubscriber<Int, Wrapped>.Event] = sendValues ? [.value(7)] : []
      #expect(
        recorder.events
          == [.subscription] + values + [
            .completion(.failure(Wrapped(inner: TestError(code: 3))))
          ]
      )
    }
  }

  @Test func transform_releasedAfterCancelAndCompletion() {
    expectClosureReleased {
      (
        upstream: TestPublisher<Int, TestError>,
        token,
        recorder: RecordingSubscriber<Int, Wrapped>
      ) in
      upstream.mapError {
        _ = token
        return Wrapped(inner: $0)
      }.subscribe(recorder)
    }
  }

  @Test func inner_describesItselfAsMapError() {
    let spy = InnerSpy<Int, TestError>()
    spy.mapError { Wrapped(inner: $0) }.subscribe(RecordingSubscriber<Int, Wrapped>())
    #expect(spy.descriptions == ["MapError"])
    #expect(spy.mirrors == [[]])  // as Combine: no children
  }

  @Test func mapError_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: {
        Result<Int, TestError>.Publisher(1).mapError { Wrapped(inner: $0) }
      },
      makeFailingPublisher: {
        Result<Int, TestError>.Publisher(TestError()).mapError { Wrapped(inner: $0) }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }
}
