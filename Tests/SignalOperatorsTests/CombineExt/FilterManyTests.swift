import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FilterManyTests {
  @Test func eachCollection_keepsPassingElements() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<[Int], TestError>) in
        upstream.filterMany { $0.isMultiple(of: 2) }
      },
      inputs: [[10, 1, 2, 3], [1], [4]],
      expected: ["[10, 2]", "[]", "[4]"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }
}
