import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SetFailureTypeTests {
  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Int, Never>) in
      upstream.setFailureType(to: TestError.self)
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

  @Test func setFailureTypeTwice_staysOneSetFailureType() {
    let twice = Deferred { [1].publisher }.setFailureType(to: TestError.self)
      .setFailureType(to: CancellationError.self)
    #expect(
      type(of: twice)
        == Publishers.SetFailureType<
          Deferred<Publishers.Sequence<[Int], Never>>, CancellationError
        >.self
    )
    let recorder = RecordingSubscriber<Int, CancellationError>()
    twice.subscribe(recorder)
    #expect(recorder.values == [1])
  }

  @Test func equatable_comparesUpstreams() {
    let upstream = [1, 2].publisher
    #expect(
      upstream.setFailureType(to: TestError.self)
        == upstream.setFailureType(to: TestError.self)
    )
    #expect(
      [1].publisher.setFailureType(to: TestError.self)
        != upstream.setFailureType(to: TestError.self)
    )
  }

  @Test func inner_describesItselfAsSetFailureType() {
    let spy = InnerSpy<Int, Never>()
    spy.setFailureType(to: TestError.self).subscribe(
      RecordingSubscriber<Int, TestError>()
    )
    #expect(spy.descriptions == ["SetFailureType"])
    #expect(spy.mirrors == [[]])  // as Combine: no children
  }

  @Test func setFailureType_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.setFailureType(to: TestError.self) },
      makeLongPublisher: {
        (0..<1_000_000).map { $0 }.publisher.setFailureType(to: TestError.self)
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}
