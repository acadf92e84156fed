import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MapManyTests {
  @Test func eachElement_isTransformed() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<[Int], TestError>) in upstream.mapMany { $0 * 10 } },
      inputs: [[1, 2], [], [3]],
      expected: ["[10, 20]", "[]", "[30]"],
      error: TestError(),
      description: "TestPublisher"
    ).runAll()
  }

  @Test func anyCollection_becomesAnArray() {
    let recorder = RecordingSubscriber<[String], Never>()
    Just(Set([1])).mapMany(String.init).subscribe(recorder)
    #expect(recorder.values == [["1"]])
  }
}
