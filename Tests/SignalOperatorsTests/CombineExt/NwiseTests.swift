import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct NwiseTests {
  @Test func windows_startAtTheSizeThValue() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.nwise(3) },
      inputs: [1, 2, 3, 4, 5],
      expected: ["[1, 2, 3]", "[2, 3, 4]", "[3, 4, 5]"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func valuesBeforeTheFirstWindow_askForOneMoreEach() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: .max(1))
    upstream.nwise(3).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(3)
    #expect(recorder.values == [[1, 2, 3]])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.violations.isEmpty)
  }

  @Test func pairwise_pairsEachValueWithThePrevious() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.pairwise() },
      inputs: [1, 2, 3, 4],
      expected: ["(1, 2)", "(2, 3)", "(3, 4)"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func eachSubscription_hasItsOwnWindow() {
    let upstream = TestPublisher<Int, Never>()
    let pairs = upstream.pairwise()
    let first = RecordingSubscriber<(Int, Int), Never>()
    pairs.subscribe(first)
    upstream.send(1)
    let second = RecordingSubscriber<(Int, Int), Never>()
    pairs.subscribe(second)
    upstream.send(2)
    upstream.send(3)
    #expect(first.values.map { [$0.0, $0.1] } == [[1, 2], [2, 3]])
    #expect(second.values.map { [$0.0, $0.1] } == [[2, 3]])
  }
}
