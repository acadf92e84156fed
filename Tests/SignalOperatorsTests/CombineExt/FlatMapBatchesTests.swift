import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FlatMapBatchesTests {
  let publishers = (0..<5).map { _ in TestPublisher<Int, TestError>() }

  @Test func batchesRunOneAfterAnother_eachGivesItsValuesInOrder() {
    let publishers = self.publishers
    let recorder = RecordingSubscriber<[Int], TestError>()
    publishers.flatMapBatches(of: 2).subscribe(recorder)
    #expect(publishers.map(\.subscriptionCount) == [1, 1, 0, 0, 0])
    publishers[1].send(1)
    publishers[0].send(0)
    #expect(publishers[2].subscriptionCount == 0)
    publishers[0].send(completion: .finished)
    publishers[1].send(completion: .finished)
    #expect(publishers.map(\.subscriptionCount) == [1, 1, 1, 1, 0])
    publishers[2].send(2)
    publishers[3].send(3)
    publishers[2].send(completion: .finished)
    publishers[3].send(completion: .finished)
    publishers[4].send(4)
    publishers[4].send(completion: .finished)
    #expect(
      recorder.events == [
        .subscription, .value([0, 1]), .value([2, 3]), .value([4]), .completion(.finished),
      ]
    )
  }

  @Test func aFailure_failsAndStartsNoLaterBatch() {
    let publishers = self.publishers
    let recorder = RecordingSubscriber<[Int], TestError>()
    publishers.flatMapBatches(of: 2).subscribe(recorder)
    publishers[0].send(completion: .failure(TestError(code: 8)))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 8)))])
    #expect(publishers[1].requests.last == .cancel)
    #expect(publishers[2].subscriptionCount == 0)
  }

  @Test func emptyCollection_finishesAtOnce_sizeLargerThanTheCollection_isOneBatch() {
    let none = RecordingSubscriber<[Int], TestError>()
    [TestPublisher<Int, TestError>]().flatMapBatches(of: 3).subscribe(none)
    #expect(none.events == [.subscription, .completion(.finished)])
    let one = RecordingSubscriber<[Int], Never>()
    [Just(1), Just(2)].flatMapBatches(of: 10).subscribe(one)
    #expect(one.events == [.subscription, .value([1, 2]), .completion(.finished)])
  }

  @Test func limitedDemand_neverMoreThanRequested() {
    let recorder = RecordingSubscriber<[Int], Never>(initialDemand: .max(1))
    (1...4).map { Just($0) }.flatMapBatches(of: 1).subscribe(recorder)
    #expect(recorder.values == [[1]])
    recorder.request(.max(2))
    #expect(recorder.values == [[1], [2], [3]])
    recorder.request(.max(5))
    #expect(recorder.events.last == .completion(.finished))
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_cancelsTheRunningBatch_andReleasesTheSubscription() {
    let publishers = self.publishers
    let recorder = RecordingSubscriber<[Int], TestError>()
    weak var subscription: AnyObject?
    do {
      publishers.flatMapBatches(of: 2).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    recorder.cancel()
    #expect(publishers[0].requests.last == .cancel)
    #expect(publishers[1].requests.last == .cancel)
    #expect(publishers[2].subscriptionCount == 0)
    #expect(subscription == nil)
  }

  @Test func sizeBelowOne_traps() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = [Just(1)].flatMapBatches(of: 0)
    }
    expectTrap(result, "flatMapBatches(of:): size must be at least 1, got 0")
  }

  @Test func flatMapBatches_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        (1...5).map { Publishers.Sequence<[Int], TestError>(sequence: [$0]) }
          .flatMapBatches(of: 2)
      },
      makeFailingPublisher: {
        [
          Publishers.Sequence<[Int], TestError>(sequence: [1]).eraseToAnyPublisher(),
          Fail(error: TestError()).eraseToAnyPublisher(),
        ].flatMapBatches(of: 1)
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}
