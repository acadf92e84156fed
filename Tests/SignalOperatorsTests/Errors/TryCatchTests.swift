import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct TryCatchTests {
  @Test func upstreamFailingTwice_traps_asCombineDoes() async {
    // OpenCombine's `CatchTests.testTryCatchUpstreamFailsTwice`.
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = LoggedPublisher<Int, TestError>("up", log: CallLog())
      let handler = PassthroughSubject<Int, any Error>()
      upstream.tryCatch { _ in handler }.subscribe(RecordingSubscriber<Int, any Error>())
      upstream.send(completion: .failure(TestError()))
      upstream.send(completion: .failure(TestError()))
    }
    expectTrap(trap, "TryCatch: the upstream completed a second time")
  }

  let upstream = TestPublisher<Int, TestError>()
  let replacement = TestPublisher<Int, TestError>()

  @Test func noFailure_passesValuesAndFinishes() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryCatch { _ in Just(0) }.subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.values == [1])
    #expect(recorder.events.count == 3)
    guard case .finished? = recorder.completion else {
      Issue.record("expected .finished, got \(String(describing: recorder.completion))")
      return
    }
  }

  @Test func failure_switchesToReplacement() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryCatch { _ in [5, 6].publisher }.subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.values == [1, 5, 6])
    guard case .finished? = recorder.completion else {
      Issue.record("expected .finished, got \(String(describing: recorder.completion))")
      return
    }
  }

  @Test func handlerThrows_failsWithThrownError() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryCatch { error -> Just<Int> in throw TestError(code: error.code + 1) }
      .subscribe(recorder)
    upstream.send(completion: .failure(TestError(code: 1)))
    guard case .failure(let error)? = recorder.completion else {
      Issue.record("expected a failure")
      return
    }
    #expect(error as? TestError == TestError(code: 2))
  }

  @Test func replacementFails_failsWithItsError() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryCatch { _ in self.replacement }.subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    replacement.send(3)
    replacement.send(completion: .failure(TestError(code: 4)))
    #expect(recorder.values == [3])
    guard case .failure(let error)? = recorder.completion else {
      Issue.record("expected a failure")
      return
    }
    #expect(error as? TestError == TestError(code: 4))
  }

  @Test func demand_carriedToReplacement() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .max(3))
    upstream.tryCatch { _ in self.replacement }.subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(replacement.requests == [.demand(.max(2))])
  }

  @Test func demandNone_deliversNothingUntilRequested() {
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    Fail<Int, TestError>(error: TestError()).tryCatch { _ in [1, 2].publisher }.subscribe(recorder)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values == [1])
  }

  @Test func cancel_stopsEverything() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryCatch { _ in self.replacement }.subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    recorder.cancel()
    replacement.send(1)
    #expect(replacement.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.values.isEmpty)
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    let cancelled = WeakSubscriber<Int, any Error>()
    upstream.tryCatch { _ in Just(1) }.subscribe(cancelled)
    cancelled.cancel()
    #expect(cancelled.subscription == nil)
    let completed = WeakSubscriber<Int, any Error>()
    Fail<Int, TestError>(error: TestError()).tryCatch { _ -> Just<Int> in throw TestError() }
      .subscribe(completed)
    #expect(completed.isCompleted)
    #expect(completed.subscription == nil)
  }

  @Test func description_isTryCatch() {
    let recorder = RecordingSubscriber<Int, any Error>()
    upstream.tryCatch { _ in Just(1) }.subscribe(recorder)
    #expect(recorder.subscriptionDescription == "TryCatch")
  }

  @Test func tryCatch_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Fail<Int, TestError>(error: TestError()).tryCatch { _ in [1, 2].publisher }
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).tryCatch {
          _ -> Publishers.Sequence<[Int], Never> in
          throw TestError(code: 1)
        }
      },
      makeLongPublisher: {
        Fail<Int, TestError>(error: TestError()).tryCatch { _ in Array(0..<1_000_000).publisher }
      }
    )
    .run()
    .expectAllPassed()
  }
}
