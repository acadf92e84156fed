import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MapToValueTests {
  @Test func mapToValue_replacesEachValue() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.mapToValue("x") },
      inputs: [1, 2, 3],
      expected: ["x", "x", "x"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func mapToVoid_replacesEachValue() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in upstream.mapToVoid() },
      inputs: [1, 2],
      expected: ["()", "()"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func returnTypes_areMaps() {
    let upstream = TestPublisher<Int, Never>()
    let value: Publishers.Map<TestPublisher<Int, Never>, String> = upstream.mapToValue("a")
    let void: Publishers.Map<TestPublisher<Int, Never>, Void> = upstream.mapToVoid()
    let recorder = RecordingSubscriber<String, Never>()
    value.subscribe(recorder)
    _ = void
    upstream.send(9)
    #expect(recorder.values == ["a"])
  }
}
