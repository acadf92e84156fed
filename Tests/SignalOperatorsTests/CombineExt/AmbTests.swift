import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AmbTests {
  let first = TestPublisher<Int, TestError>()
  let second = TestPublisher<Int, TestError>()

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_describesItself_andMirrorsDownstreamWinnerAndDemand() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(2))
    first.amb(second).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Amb")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "Amb")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "winner", "requested"])
    #expect(children().first?.value as? RecordingSubscriber<Int, TestError> === recorder)
    #expect(children().dropFirst().map { String(describing: $0.value) } == ["nil", "max(2)"])
    second.send(5)
    #expect(String(describing: Array(children())[1].value).contains("second"))
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "nil", "max(0)"])
  }

  @Test func theFirstToSendAValue_wins_theOtherIsCancelled() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.amb(second).subscribe(recorder)
    #expect(first.requests == [.demand(.unlimited)])
    #expect(second.requests == [.demand(.unlimited)])
    second.send(1)
    first.send(100)
    second.send(2)
    second.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(first.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.subscriptionDescription == "Amb")
  }

  @Test func theFirstToComplete_wins() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.amb(second).subscribe(recorder)
    first.send(completion: .failure(TestError(code: 4)))
    second.send(1)
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 4)))])
    #expect(second.requests == [.demand(.unlimited), .cancel])
  }

  @Test func beforeAWinner_requestsGoToBoth_afterItToTheWinnerOnly() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    first.amb(second).subscribe(recorder)
    #expect(first.requests.isEmpty)
    recorder.request(.max(2))
    #expect(first.requests == [.demand(.max(2))])
    #expect(second.requests == [.demand(.max(2))])
    first.send(1)
    first.send(2)
    first.send(3)  // beyond demand: the test publisher drops it
    recorder.request(.max(1))
    first.send(4)
    #expect(recorder.values == [1, 2, 4])
    #expect(first.requests == [.demand(.max(2)), .demand(.max(1))])
    #expect(second.requests == [.demand(.max(2)), .cancel])
    #expect(recorder.violations.isEmpty)
    #expect(first.violations == ["sent 3 while demand was none"])
  }

  @Test func aSideSubscribedLater_isAskedForEverythingRequestedSoFar() {
    let late = PassthroughSubject<Int, TestError>()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(3))
    first.amb(late.subscribe(on: ImmediateScheduler.shared)).subscribe(recorder)
    late.send(7)
    #expect(recorder.values == [7])
    #expect(first.requests == [.demand(.max(3)), .cancel])
  }

  @Test func aFirstThatCompletesWhileSubscribing_meansTheSecondIsNeverSubscribed() {
    let recorder = RecordingSubscriber<Int, TestError>()
    Empty<Int, TestError>().amb(second).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(second.subscriptionCount == 0)
  }

  @Test func aSynchronousFirst_winsAtTheFirstRequest_theSecondIsCancelled() {
    let recorder = RecordingSubscriber<Int, TestError>()
    Just(5).setFailureType(to: TestError.self).amb(second).subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(5), .completion(.finished)])
    #expect(second.requests == [.cancel])
  }

  // CombineExt's `testAmbLimitedPreDemand`: the subscriber requests, and the publishers send,
  // from inside `receive(subscription:)`, before a winner is known; the winner's values within
  // that demand arrive.
  @Test func demandRequestedBeforeTheRace_theWinnersValuesArrive() {
    let left = PassthroughSubject<Int, Never>()
    let right = PassthroughSubject<Int, Never>()
    let received = LockedState<[Int]>([])
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: { subscription in
        subscription.request(.max(2))
        right.send(3)
        left.send(1)
        left.send(0)
        right.send(0)
        right.send(7)
        left.send(12)
      },
      receiveValue: { value in
        received.withLock { $0.append(value) }
        return .none
      },
      receiveCompletion: nil
    )
    left.amb(right).subscribe(subscriber)
    #expect(received.withLock { $0 } == [3, 0])
  }

  /// Two publishers that complete while being subscribed: the first decides, and its
  /// completion reaches the subscriber once it has its subscription (CombineExt's
  /// `testAmbEmptyAndEmpty`).
  @Test func bothEmpty_theFirstCompletionArrivesAfterTheSubscription() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    Publishers.Amb(first: Empty<Int, TestError>(), second: Fail(error: TestError(code: 2)))
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func ambWith_variadicAndCollection_mirrorTheFirstOfAll() {
    let third = TestPublisher<Int, TestError>()
    let variadic = RecordingSubscriber<Int, TestError>()
    let collection = RecordingSubscriber<Int, TestError>()
    first.amb(with: second, third).subscribe(variadic)
    first.amb(with: [second, third]).subscribe(collection)
    third.send(3)
    second.send(2)
    first.send(1)
    third.send(completion: .finished)
    for recorder in [variadic, collection] {
      #expect(recorder.events == [.subscription, .value(3), .completion(.finished)])
    }
    #expect(first.requests.filter { $0 == .cancel }.count == 2)
    #expect(second.requests.filter { $0 == .cancel }.count == 2)
  }

  @Test func collectionAmb_mirrorsTheFirstToSend() {
    let third = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<Int, TestError>()
    [first, second, third].amb().subscribe(recorder)
    second.send(2)
    first.send(1)
    third.send(3)
    second.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(2), .completion(.failure(TestError()))])
    #expect(first.requests.last == .cancel)
    #expect(third.requests.last == .cancel)
  }

  @Test func collectionAmb_ofOne_mirrorsIt_ofNone_finishesAtOnce() {
    let one = RecordingSubscriber<Int, TestError>()
    [first].amb().subscribe(one)
    first.send(1)
    first.send(completion: .finished)
    #expect(one.events == [.subscription, .value(1), .completion(.finished)])
    let none = RecordingSubscriber<Int, TestError>()
    [TestPublisher<Int, TestError>]().amb().subscribe(none)
    #expect(none.events == [.subscription, .completion(.finished)])
  }

  @Test func cancel_cancelsBothAndReleasesTheSubscription() {
    let recorder = RecordingSubscriber<Int, TestError>()
    weak var subscription: AnyObject?
    do {
      first.amb(second).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    recorder.cancel()
    first.send(1)
    #expect(recorder.values.isEmpty)
    #expect(first.requests.last == .cancel)
    #expect(second.requests.last == .cancel)
    #expect(subscription == nil)
  }

  @Test func cancelAfterAWinner_cancelsTheWinner() {
    let recorder = RecordingSubscriber<Int, TestError>()
    first.amb(second).subscribe(recorder)
    first.send(1)
    recorder.cancel()
    first.send(2)
    #expect(recorder.values == [1])
    #expect(first.requests == [.demand(.unlimited), .cancel])
    #expect(second.requests == [.demand(.unlimited), .cancel])
  }

  @Test func completion_releasesTheSubscription() {
    let recorder = RecordingSubscriber<Int, TestError>()
    weak var subscription: AnyObject?
    do {
      first.amb(second).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
    }
    second.send(1)
    second.send(completion: .finished)
    #expect(recorder.completion == .finished)
    #expect(subscription == nil)
  }

  @Test func concurrentSends_exactlyOneWins_nothingOfTheLoserArrives() {
    for _ in 0..<200 {
      let left = PassthroughSubject<Int, Never>()
      let right = PassthroughSubject<Int, Never>()
      let cancels = [CallCounter(), CallCounter()]
      let recorder = ConcurrentRecorder<Int, Never>()
      left.handleEvents(receiveCancel: { cancels[0].increment() })
        .amb(right.handleEvents(receiveCancel: { cancels[1].increment() }))
        .subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        let base = side * 10_000
        for value in base..<(base + 300) { (side == 0 ? left : right).send(value) }
      }
      let values = recorder.values
      let winner = (values.first ?? 0) / 10_000
      #expect(values == Array((winner * 10_000)..<(winner * 10_000 + 300)))
      #expect(cancels[winner].value == 0)
      #expect(cancels[1 - winner].value == 1)
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func amb_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .amb(Empty(completeImmediately: false))
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError()))
          .amb(Empty(completeImmediately: false))
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000)
          .amb(Empty(completeImmediately: false))
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }

  @Test func ambOfThree_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        [
          Empty<Int, TestError>(completeImmediately: false).eraseToAnyPublisher(),
          Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).eraseToAnyPublisher(),
          Empty(completeImmediately: false).eraseToAnyPublisher(),
        ].amb()
      },
      makeFailingPublisher: {
        [
          Empty<Int, TestError>(completeImmediately: false).eraseToAnyPublisher(),
          Fail(error: TestError()).eraseToAnyPublisher(),
        ].amb()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}
