import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct EnumeratedTests {
  @Test func values_areNumberedFromZero() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<String, TestError>) in upstream.enumerated() },
      inputs: ["a", "b", "c"],
      expected: [
        "(index: 0, element: \"a\")", "(index: 1, element: \"b\")", "(index: 2, element: \"c\")",
      ],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func initial_isTheFirstIndex() {
    let recorder = RecordingSubscriber<(index: Int, element: String), Never>()
    ["a", "b"].publisher.enumerated(initial: 5).subscribe(recorder)
    #expect(recorder.values.map(\.index) == [5, 6])
    #expect(recorder.values.map(\.element) == ["a", "b"])
  }

  @Test func eachSubscription_countsOnItsOwn() {
    let upstream = TestPublisher<String, Never>()
    let numbered = upstream.enumerated()
    let first = RecordingSubscriber<(index: Int, element: String), Never>()
    numbered.subscribe(first)
    upstream.send("a")
    let second = RecordingSubscriber<(index: Int, element: String), Never>()
    numbered.subscribe(second)
    upstream.send("b")
    #expect(first.values.map(\.index) == [0, 1])
    #expect(second.values.map(\.index) == [0])
  }

  @Test func publisher_keepsItsProperties() {
    let numbered = Publishers.Enumerated(upstream: Just(1), initial: 3)
    #expect(numbered.initial == 3)
    #expect(numbered.upstream == Just(1))
  }
}
