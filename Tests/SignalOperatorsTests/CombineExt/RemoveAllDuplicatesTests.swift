import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct RemoveAllDuplicatesTests {
  /// Equatable but not Hashable.
  struct Point: Equatable, CustomStringConvertible {
    var x: Int
    var description: String { "P\(x)" }
  }

  @Test func hashable_dropsEveryRepeat() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.removeAllDuplicates() },
      inputs: [1, 1, 2, 1, 3, 2],
      expected: ["1", "2", "3"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func equatable_dropsEveryRepeat() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Point, TestError>) in upstream.removeAllDuplicates() },
      inputs: [Point(x: 1), Point(x: 2), Point(x: 1)],
      expected: ["P1", "P2"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func by_usesTheComparatorWithSeenThenNew() {
    let calls = LockedState<[[Int]]>([])
    let recorder = RecordingSubscriber<Int, Never>()
    [10, 11, 20, 25].publisher
      .removeAllDuplicates { seen, new in
        calls.withLock { $0.append([seen, new]) }
        return seen / 10 == new / 10
      }
      .subscribe(recorder)
    #expect(recorder.values == [10, 20])
    #expect(calls.withLock { $0 } == [[10, 11], [10, 20], [10, 25], [20, 25]])
  }

  @Test func droppedValues_askForOneMoreEach() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    upstream.removeAllDuplicates().subscribe(recorder)
    upstream.send(1)
    upstream.send(1)
    upstream.send(1)
    #expect(upstream.outstandingDemand == .max(1))
    upstream.send(2)
    #expect(recorder.values == [1, 2])
    #expect(upstream.outstandingDemand == .none)
    #expect(upstream.violations.isEmpty)
  }

  @Test func eachSubscription_startsWithNothingSeen() {
    let upstream = TestPublisher<Int, Never>()
    let distinct = upstream.removeAllDuplicates()
    let first = RecordingSubscriber<Int, Never>()
    let second = RecordingSubscriber<Int, Never>()
    distinct.subscribe(first)
    distinct.subscribe(second)
    upstream.send(1)
    upstream.send(1)
    #expect(first.values == [1])
    #expect(second.values == [1])
  }
}
