import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeferredTests {
  @Test func subscribe_attachesTheSubscriberToTheCreatedPublisher() {
    let recorder = Recorder<Int, Never>()
    Deferred { [1, 2].publisher }.subscribe(recorder)
    #expect(
      recorder.events == [
        .subscription("[1, 2]"), .value(1), .value(2), .completion(.finished),
      ]
    )
  }

  @Test func creation_waitsForASubscriber() {
    var created = 0
    let deferred = Deferred { () -> Just<Int> in
      created += 1
      return Just(created)
    }
    #expect(created == 0)
    let first = Recorder<Int, Never>()
    deferred.subscribe(first)
    #expect(created == 1)
    let second = Recorder<Int, Never>()
    deferred.subscribe(second)
    #expect(created == 2)
    #expect(first.values == [1])
    #expect(second.values == [2])
  }

  @Test func demand_isPassedToTheCreatedPublisher() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    Deferred { [1, 2, 3].publisher }.subscribe(recorder)
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2])
  }

  @Test func failure_isPassedThrough() {
    let recorder = Recorder<Int, TestError>()
    Deferred { Fail<Int, TestError>(error: TestError(code: 9)) }.subscribe(recorder)
    #expect(
      recorder.events == [.subscription("Empty"), .completion(.failure(TestError(code: 9)))]
    )
  }

  @Test func cancel_reachesTheCreatedSubscription() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    Deferred { [1, 2, 3].publisher }.subscribe(recorder)
    recorder.cancel()
    recorder.request(.max(1))
    #expect(recorder.values == [1])
    #expect(recorder.completions.isEmpty)
  }

  @Test func createPublisher_isStored() {
    let deferred = Deferred { Just("x") }
    #expect(deferred.createPublisher().output == "x")
  }
}
