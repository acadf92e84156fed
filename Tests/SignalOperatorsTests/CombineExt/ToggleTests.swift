import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ToggleTests {
  @Test func values_areNegated() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Bool, TestError>) in upstream.toggle() },
      inputs: [true, false, true],
      expected: ["false", "true", "false"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }
}
