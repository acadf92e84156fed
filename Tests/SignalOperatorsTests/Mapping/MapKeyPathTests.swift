import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MapKeyPathTests {
  private struct Point: Sendable {
    var x: Int
    var y: Int
    var z: Int
  }

  private let scenarios = PassThroughScenarios(
    make: { (upstream: TestPublisher<Point, TestError>) in upstream.map(\.y) },
    inputs: [Point(x: 1, y: 2, z: 3), Point(x: 4, y: 5, z: 6)],
    expected: ["2", "5"],
    error: TestError(code: 1),
    description: "TestPublisher"
  )

  @Test func values_areRead() { scenarios.basic() }
  @Test func demandNone_nothingUntilRequested() { scenarios.demandNone() }
  @Test func demandToppedUpFromReceive_deliversAll() { scenarios.demandOneAtATime() }
  @Test func demandMaxOne_deliversOne() { scenarios.demandMaxOne() }
  @Test func upstreamFails_failurePassesThrough() { scenarios.upstreamFails() }
  @Test func upstreamFinishesEmpty_finishes() { scenarios.finishesEmpty() }
  @Test func cancel_beforeDuringAfter_stopsDelivery() { scenarios.cancel() }
  @Test func cancelFromReceive_stopsDelivery() { scenarios.cancelFromReceive() }
  @Test func requestFromReceive_reachesUpstream() { scenarios.requestFromReceive() }
  @Test func subscription_releasedAfterEnd() { scenarios.subscriptionReleased() }

  @Test func twoKeyPaths_publishTuples() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Point, TestError>) in upstream.map(\.x, \.z) },
      inputs: [Point(x: 1, y: 2, z: 3), Point(x: 4, y: 5, z: 6)],
      expected: ["(1, 3)", "(4, 6)"],
      error: TestError(code: 1),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func threeKeyPaths_publishTuples() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Point, TestError>) in upstream.map(\.z, \.y, \.x) },
      inputs: [Point(x: 1, y: 2, z: 3), Point(x: 4, y: 5, z: 6)],
      expected: ["(3, 2, 1)", "(6, 5, 4)"],
      error: TestError(code: 1),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func keyPathMaps_haveCombineTypes() {
    let points = [Point(x: 1, y: 2, z: 3)].publisher
    #expect(
      type(of: points.map(\.x))
        == Publishers.MapKeyPath<Publishers.Sequence<[Point], Never>, Int>.self
    )
    #expect(
      type(of: points.map(\.x, \.y))
        == Publishers.MapKeyPath2<Publishers.Sequence<[Point], Never>, Int, Int>.self
    )
    #expect(
      type(of: points.map(\.x, \.y, \.z))
        == Publishers.MapKeyPath3<Publishers.Sequence<[Point], Never>, Int, Int, Int>.self
    )
  }

  @Test func inner_describesItselfAsValueForKey() {
    let spy = InnerSpy<Point, Never>()
    spy.map(\.x).subscribe(RecordingSubscriber<Int, Never>())
    spy.map(\.x, \.y).subscribe(RecordingSubscriber<(Int, Int), Never>())
    spy.map(\.x, \.y, \.z).subscribe(RecordingSubscriber<(Int, Int, Int), Never>())
    #expect(spy.descriptions == ["ValueForKey", "ValueForKeys", "ValueForKeys"])
    // As Combine: the key path, or the key paths.
    let labels = spy.mirrors.map { $0?.map { $0.prefix(while: { $0 != ":" }) } }
    #expect(
      labels == [["keyPath"], ["keyPath0", "keyPath1"], ["keyPath0", "keyPath1", "keyPath2"]]
    )
  }

  @Test func mapKeyPath_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: { [Point(x: 1, y: 2, z: 3), Point(x: 4, y: 5, z: 6)].publisher.map(\.z) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}
