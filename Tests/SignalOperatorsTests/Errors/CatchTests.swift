import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CatchTests {
  @Test func valueBeyondDemand_traps_asCombineDoes() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      EarlyEventPublisher<Int>(value: 1).setFailureType(to: TestError.self).catch { _ in Just(0) }
        .subscribe(RecordingSubscriber<Int, Never>(initialDemand: nil))
    }
    expectTrap(trap, "Catch: the upstream sent a value beyond the subscriber's demand")
  }

  @Test func upstreamFailingTwice_traps_asCombineDoes() async {
    // OpenCombine's `CatchTests.testCatchUpstreamFailsTwice`.
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = LoggedPublisher<Int, TestError>("up", log: CallLog())
      let handler = PassthroughSubject<Int, Never>()
      upstream.catch { _ in handler }.subscribe(RecordingSubscriber<Int, Never>())
      upstream.send(completion: .failure(TestError()))
      upstream.send(completion: .failure(TestError()))
    }
    expectTrap(trap, "Catch: the upstream completed a second time")
  }

  @Test func upstreamFailingAgainFromInsideTheHandler_traps_asCombineDoes() async {
    // OpenCombine's `CatchTests.testCatchRecursion`.
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = LoggedPublisher<Int, TestError>("up", log: CallLog())
      upstream.catch { _ in
        upstream.send(completion: .failure(TestError()))
        return Just(13)
      }
      .subscribe(RecordingSubscriber<Int, Never>())
      upstream.send(completion: .failure(TestError()))
    }
    expectTrap(trap, "Catch: the upstream completed a second time")
  }

  @Test func subscription_mirrorsDownstreamAndDemand() throws {
    // As Combine's `Catch`: the downstream and the demand not yet met by the first publisher.
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(3))
    upstream.catch { _ in Just(0) }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    upstream.send(1)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "demand"])
    #expect(mirror.children.first?.value as? RecordingSubscriber<Int, Never> === recorder)
    #expect(Array(mirror.children).last?.value as? Subscribers.Demand == .max(2))
  }

  @Test func subscriber_mirrorsAsTheSubscription() throws {
    // As Combine's (OpenCombine's `testCatchReflection`), where the subscriber attached to the
    // upstream is the subscription: the same description and mirror.
    let spy = InnerSpy<Int, TestError>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(3))
    spy.catch { _ in Just(0) }.subscribe(recorder)
    #expect(spy.descriptions == ["Catch"])
    #expect(spy.mirrors.first??.first?.hasPrefix("downstream: ") == true)
    #expect(spy.mirrors.first??.last == "demand: max(0)")  // before its subscription
  }

  @Test func cancelInsideReceive_stillReturnsTheSubscribersDemand() {
    // As Combine: the demand the subscriber returns goes back to the upstream that sent the
    // value even though the subscriber cancelled from inside `receive(_:)`.
    let source = CombiningPushSource<Int, TestError>()
    source.catch { _ in Just(0) }.subscribe(
      CancelInReceiveSubscriber<Int, Never>(returning: .max(1))
    )
    #expect(source.send(1) == .max(1))
    #expect(source.cancelled)
  }

  let upstream = TestPublisher<Int, TestError>()
  let replacement = TestPublisher<Int, Never>()

  @Test func noFailure_passesValuesAndFinishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.catch { _ in Just(0) }.subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func failureAfterValues_switchesToReplacement() {
    let recorder = RecordingSubscriber<Int, Never>()
    var seen: TestError?
    upstream.catch { error -> Just<Int> in
      seen = error
      return Just(9)
    }
    .subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError(code: 3)))
    #expect(seen == TestError(code: 3))
    #expect(recorder.events == [.subscription, .value(1), .value(9), .completion(.finished)])
  }

  @Test func failureBeforeValues_switchesToReplacement() {
    let recorder = RecordingSubscriber<Int, Never>()
    Fail<Int, TestError>(error: TestError()).catch { _ in [7, 8].publisher }.subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(7), .value(8), .completion(.finished)])
  }

  @Test func replacementFails_failureGoesDownstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.catch { _ in Fail<Int, TestError>(error: TestError(code: 5)) }.subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 5)))])
  }

  @Test func demandNone_replacementWaitsForRequest() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    upstream.catch { _ in self.replacement }.subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(replacement.requests.isEmpty)
    recorder.request(.max(1))
    #expect(replacement.requests == [.demand(.max(1))])
  }

  @Test func remainingDemand_carriedToReplacement() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(4))
    upstream.catch { _ in self.replacement }.subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(upstream.requests == [.demand(.max(4))])
    #expect(replacement.requests == [.demand(.max(3))])
  }

  @Test func maxOne_toppedUpFromReceive_deliversAll() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.catch { _ in [2, 3].publisher }.subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelBeforeFailure_handlerNotCalled() {
    let recorder = RecordingSubscriber<Int, Never>()
    var called = false
    upstream.catch { _ -> Just<Int> in
      called = true
      return Just(0)
    }
    .subscribe(recorder)
    recorder.cancel()
    upstream.send(completion: .failure(TestError()))
    #expect(!called)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelDuringReplacement_cancelsIt() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.catch { _ in self.replacement }.subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    replacement.send(1)
    recorder.cancel()
    replacement.send(2)
    #expect(replacement.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.values == [1])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    upstream.catch { _ in [1, 2].publisher }.subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(completion: .failure(TestError()))
    recorder.request(.max(5))
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func requestFromReceive_isForwarded() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    upstream.catch { _ in [1, 2, 3].publisher }.subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(completion: .failure(TestError()))
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2, 3])
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    let cancelled = WeakSubscriber<Int, Never>()
    upstream.catch { _ in Just(1) }.subscribe(cancelled)
    cancelled.cancel()
    #expect(cancelled.subscription == nil)
    let completed = WeakSubscriber<Int, Never>()
    Fail<Int, TestError>(error: TestError()).catch { _ in Just(1) }.subscribe(completed)
    #expect(completed.isCompleted)
    #expect(completed.subscription == nil)
  }

  @Test func description_isCatch() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.catch { _ in Just(1) }.subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Catch")
  }

  @Test func catch_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1]).append(Fail(error: TestError()))
          .catch { _ in [2, 3].publisher }
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Fail<Int, TestError>(error: TestError())
          .catch { _ in (0..<1_000_000).publisher }
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func catchFailing_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Fail<Int, TestError>(error: TestError()).catch { _ in
          Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).eraseToAnyPublisher()
        }
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).catch { _ in
          Fail<Int, TestError>(error: TestError(code: 1)).eraseToAnyPublisher()
        }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}
