import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FlatMapTests {
  @Test func requestUnlimited_asksEveryChildForUnlimited() {
    // As Combine: children asked one value at a time get `.unlimited` once the subscriber asks
    // for everything.
    let log = CallLog()
    let outer = LoggedPublisher<Int, TestError>("outer", log: log)
    let children = [LoggedPublisher<Int, TestError>("child0", log: log), .init("child1", log: log)]
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    outer.flatMap { children[$0] }.subscribe(recorder)
    outer.send(0)
    outer.send(1)
    #expect(log.calls == ["outer.request unlimited", "child0.request 1", "child1.request 1"])
    log.calls.removeAll()
    recorder.request(.unlimited)
    #expect(log.calls == ["child0.request unlimited", "child1.request unlimited"])
    #expect(children[0].send(5) == .none)  // no top-up needed any more
    #expect(recorder.values == [5])
  }

  // Differential oracle (issue 15), K164: `flatMap(max:1) u v0.2 r0.u`. As Combine: every
  // `request(.unlimited)` asks each child for `.unlimited` again, also one asked for it before.
  @Test func requestUnlimitedAgain_asksTheChildrenAgain() {
    let log = CallLog()
    let outer = LoggedPublisher<Int, TestError>("outer", log: log)
    let child = LoggedPublisher<Int, TestError>("child0", log: log)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited)
    outer.flatMap(maxPublishers: .max(1)) { _ in child }.subscribe(recorder)
    outer.send(2)
    #expect(log.calls == ["outer.request 1", "child0.request unlimited"])
    log.calls.removeAll()
    recorder.request(.unlimited)
    #expect(log.calls == ["child0.request unlimited"])
  }

  // Differential oracle (issue 15), K164: `flatMap(max:1) - i0.u r0.2 v0.2 v1.4`. As Combine: a
  // `request(.unlimited)` from inside `receive(_:)` only adds to the demand; the child hears of
  // it through what its values return (`.max(1)` for the value being delivered, nothing after).
  @Test func requestUnlimitedFromReceive_doesNotReachTheChildren() {
    let log = CallLog()
    let outer = LoggedPublisher<Int, TestError>("outer", log: log)
    let child = LoggedPublisher<Int, TestError>("child0", log: log)
    let seen = Seen<RecordingSubscriber<Int, TestError>>()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil) { value in
      if value == 4 { seen.value?.request(.unlimited) }
      return .none
    }
    seen.value = recorder
    outer.flatMap(maxPublishers: .max(1)) { _ in child }.subscribe(recorder)
    recorder.request(.max(2))
    outer.send(2)
    #expect(log.calls == ["outer.request 1", "child0.request 1"])
    #expect(child.send(4) == .max(1))
    #expect(child.send(5) == .none)
    #expect(log.calls == ["outer.request 1", "child0.request 1"])
    #expect(recorder.values == [4, 5])
  }

  @Test func cancel_cancelsTheChildrenBeforeTheUpstream() {
    let log = CallLog()
    let outer = LoggedPublisher<Int, TestError>("outer", log: log)
    let children = [LoggedPublisher<Int, TestError>("child0", log: log), .init("child1", log: log)]
    let recorder = RecordingSubscriber<Int, TestError>()
    outer.flatMap { children[$0] }.subscribe(recorder)
    outer.send(0)
    outer.send(1)
    log.calls.removeAll()
    recorder.cancel()
    #expect(log.calls == ["child0.cancel", "child1.cancel", "outer.cancel"])
  }

  typealias Boom = TestError

  let upstream = TestPublisher<Int, Boom>()
  let children = (0..<4).map { _ in TestPublisher<Int, Boom>() }

  /// `upstream.flatMap { children[$0] }`.
  func flattened(
    maxPublishers: Subscribers.Demand = .unlimited
  )
    -> Publishers.FlatMap<TestPublisher<Int, Boom>, TestPublisher<Int, Boom>>
  {
    let children = self.children
    return upstream.flatMap(maxPublishers: maxPublishers) { children[$0] }
  }

  @Test func synchronousChildren_deliverInOrder() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2, 3].publisher.flatMap { [$0, $0 * 10].publisher }.subscribe(recorder)
    #expect(recorder.values == [1, 10, 2, 20, 3, 30])
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func manyJusts_allDelivered() {
    let recorder = RecordingSubscriber<Int, Never>()
    (0..<10_000).publisher.flatMap { Just($0) }.subscribe(recorder)
    #expect(recorder.values == Array(0..<10_000))
    #expect(recorder.completion == .finished)
  }

  @Test func justChildrenWithoutDemand_heldUntilRequested() {
    let source = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    source.flatMap { Just($0) }.subscribe(recorder)
    source.send(1)
    source.send(2)
    source.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1)])
    recorder.request(.max(5))
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func justChildren_maxPublishersRefilledPerChild() {
    let source = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    source.flatMap(maxPublishers: .max(2)) { Just($0) }.subscribe(recorder)
    #expect(source.requests == [.demand(.max(2))])
    source.send(1)
    source.send(2)  // held: no demand downstream, but the child is done
    #expect(source.outstandingDemand == .max(2))
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2])
  }

  /// As Combine's (OpenCombine's `FlatMapTests.testChildSubscribeDeadlock`): the publisher that
  /// replaces a finished `Just` child is requested from the upstream, not returned from
  /// `receive(_:)`.
  @Test func justChildren_replacementIsRequested_notReturned() {
    let source = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    source.flatMap(maxPublishers: .max(2)) { Just($0) }.subscribe(recorder)
    source.send(666)
    #expect(recorder.values == [666])
    #expect(source.requests == [.demand(.max(2)), .demand(.max(1))])
  }

  @Test func justChildren_cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let source = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    source.flatMap { Just($0) }.subscribe(recorder)
    holder.subscription = recorder.subscription
    source.send(1)
    source.send(2)
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(1)])
    #expect(source.requests == [.demand(.unlimited), .cancel])
  }

  @Test func interleavedChildren_deliverAsTheyCome() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    children[1].send(10)
    children[0].send(0)
    children[1].send(11)
    #expect(recorder.values == [10, 0, 11])
  }

  /// Subject children, the shape of `subjects.publisher.flatMap { $0 }`: the children's
  /// subscriptions are made in the operator's specialised code, and their values, one
  /// child's completion and the last completion all go through.
  @Test func subjectChildren_deliverAsTheySendAndFinishAfterTheLast() {
    let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
    var values: [Int] = []
    var finished = false
    let cancellable = subjects.publisher.flatMap { $0 }
      .sink(receiveCompletion: { _ in finished = true }, receiveValue: { values.append($0) })
    for round in 0..<3 {
      for (index, subject) in subjects.enumerated() { subject.send(round * 10 + index) }
    }
    subjects[1].send(completion: .finished)
    subjects[0].send(99)
    subjects[1].send(98)  // after its completion: not delivered
    subjects[0].send(completion: .finished)
    #expect(!finished)
    subjects[2].send(completion: .finished)
    #expect(values == [0, 1, 2, 10, 11, 12, 20, 21, 22, 99])
    #expect(finished)
    cancellable.cancel()
  }

  /// Type-erased children, whose code calls the operator from unspecialised code: values, a
  /// child's finish and a child's failure each reach the operator.
  @Test func erasedChildren_valuesFinishesAndFailureArrive() {
    let recorder = RecordingSubscriber<Int, Boom>()
    let children = self.children
    upstream.flatMap { children[$0].eraseToAnyPublisher() }.subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    children[0].send(1)
    children[1].send(2)
    children[0].send(completion: .finished)
    children[1].send(3)
    children[1].send(completion: .failure(Boom(code: 7)))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .failure(Boom(code: 7)))
    #expect(upstream.requests == [.demand(.unlimited)])  // let go of, not cancelled
  }

  @Test func erasedJustChildren_followTheDownstreamsDemand() {
    // The children subscribe through AnyPublisher's inner-subscriber entry (specialised for
    // `Just`); values wait for demand and each child's completion frees its slot.
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    let outer = PassthroughSubject<Int, Never>()
    outer.flatMap(maxPublishers: .max(2)) { Just($0 * 10).eraseToAnyPublisher() }
      .subscribe(recorder)
    for value in 1...4 { outer.send(value) }
    #expect(recorder.values == [10, 20])
    recorder.request(.max(1))
    outer.send(5)
    #expect(recorder.values == [10, 20, 30])
    recorder.request(.unlimited)
    #expect(recorder.values == [10, 20, 30, 40, 50])
    outer.send(completion: .finished)
    #expect(recorder.completion == .finished)
  }

  @Test func erasedChildrenOfEveryKind_valuesAndCompletionArrive() {
    let recorder = RecordingSubscriber<Int, Never>()
    [0, 1, 2, 3, 4].publisher
      .flatMap { value -> AnyPublisher<Int, Never> in
        switch value {
        case 0: return Just(1).eraseToAnyPublisher()
        case 1: return Empty<Int, Never>().eraseToAnyPublisher()
        case 2: return AnyPublisher(Optional(2).publisher.eraseToAnyPublisher())
        case 3: return Result<Int, Never>.Publisher(3).eraseToAnyPublisher()
        default: return [4, 5].publisher.eraseToAnyPublisher()
        }
      }
      .subscribe(recorder)
    #expect(recorder.values == [1, 2, 3, 4, 5])
    #expect(recorder.completion == .finished)
  }

  @Test func upstreamRequests_maxPublishersThenOnePerFinishedChild() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened(maxPublishers: .max(2)).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(2))])
    upstream.send(0)
    upstream.send(1)
    upstream.send(2)  // beyond maxPublishers: not delivered by TestPublisher
    #expect(children[2].subscriptionCount == 0)
    children[0].send(completion: .finished)
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1))])
    upstream.send(2)
    #expect(children[2].subscriptionCount == 1)
  }

  @Test func unlimitedMaxPublishers_requestsUnlimitedOnly() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    upstream.send(0)
    children[0].send(completion: .finished)
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func childRequests_maxOneWhenDemandLimited_unlimitedWhenUnlimited() {
    let limited = RecordingSubscriber<Int, Boom>(initialDemand: .max(5))
    flattened().subscribe(limited)
    upstream.send(0)
    #expect(children[0].requests == [.demand(.max(1))])
    children[0].send(1)
    #expect(children[0].outstandingDemand == .max(1))

    let unlimitedUpstream = TestPublisher<Int, Boom>()
    let child = TestPublisher<Int, Boom>()
    let unlimited = RecordingSubscriber<Int, Boom>()
    unlimitedUpstream.flatMap { _ in child }.subscribe(unlimited)
    unlimitedUpstream.send(0)
    #expect(child.requests == [.demand(.unlimited)])
  }

  @Test func demandNone_holdsOneValuePerChildUntilRequested() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    children[0].send(1)
    children[1].send(2)
    #expect(recorder.values.isEmpty)
    #expect(children[0].outstandingDemand == .none)
    recorder.request(.max(1))
    #expect(recorder.values == [1])
    #expect(children[0].requests == [.demand(.max(1)), .demand(.max(1))])
    #expect(children[1].requests == [.demand(.max(1))])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2])
    #expect(children[1].requests == [.demand(.max(1)), .demand(.max(1))])
    #expect(children.allSatisfy { $0.violations.isEmpty })
  }

  @Test func maxOne_toppedUpFromReceive_deliversAll() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<3).publisher.flatMap { [$0, $0 + 100].publisher }.subscribe(recorder)
    #expect(recorder.values == [0, 100, 1, 101, 2, 102])
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func upstreamFinishesFirst_finishesAfterLastChild() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    upstream.send(completion: .finished)
    children[0].send(completion: .finished)
    #expect(recorder.completion == nil)
    children[1].send(5)
    children[1].send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func upstreamFinishesWithoutValues_finishesAtOnce() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    flattened().subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func finished_waitsForHeldValues() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    flattened().subscribe(recorder)
    upstream.send(0)
    children[0].send(7)
    children[0].send(completion: .finished)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
  }

  /// An upstream that breaks the protocol with a failure after `.finished` can't turn the
  /// finish into a failure: it used to, dropping the values still waiting for demand.
  @Test func failureAfterUpstreamFinished_isIgnored() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    FinishThenFailPublisher().flatMap { Just($0) }.subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
  }

  @Test func upstreamFailsWithActiveChildren_cancelsThemAndFails() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    children[0].send(3)
    upstream.send(completion: .failure(Boom(code: 1)))
    #expect(children[0].requests.last == .cancel)
    #expect(children[1].requests.last == .cancel)
    children[1].send(4)
    #expect(recorder.events == [.subscription, .value(3), .completion(.failure(Boom(code: 1)))])
  }

  /// As Combine's (OpenCombine's `FlatMapTests.testAllSubscriptionsReleasedOnChildFailure`): a
  /// child's failure cancels the other children and lets go of the upstream without
  /// cancelling it.
  @Test func childFails_cancelsSiblings_andLetsGoOfTheUpstream() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    children[1].send(completion: .failure(Boom(code: 2)))
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(children[0].requests == [.demand(.unlimited), .cancel])
    #expect(children[1].requests == [.demand(.unlimited)])
    children[0].send(1)
    #expect(recorder.events == [.subscription, .completion(.failure(Boom(code: 2)))])
  }

  @Test func childFails_dropsHeldValues() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    children[0].send(1)
    children[1].send(completion: .failure(Boom()))
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .completion(.failure(Boom()))])
  }

  @Test func failureWhileValuesAreQueued_deliversThemFirst() {
    let children = self.children
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { value in
      // Sent during a delivery, so delivered re-entrantly: child 1's values come before
      // its failure.
      if value == 0 {
        children[1].send(1)
        children[1].send(2)
        children[1].send(completion: .failure(Boom()))
      }
      return .none
    }
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    children[0].send(0)
    children[0].send(3)
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.completion == .failure(Boom()))
    #expect(recorder.violations.isEmpty)
    #expect(children[0].requests.last == .cancel)
  }

  @Test func failureWhileValuesAreQueuedWithoutDemand_doesNotWaitForDemand() {
    let children = self.children
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(2)) { value in
      if value == 0 {
        children[1].send(1)  // delivered re-entrantly, with the demand left
        children[2].send(2)  // queued: no demand left for it
        children[2].send(completion: .failure(Boom()))
      }
      return .none
    }
    flattened().subscribe(recorder)
    upstream.send(0)
    upstream.send(1)
    upstream.send(2)
    children[0].send(0)
    #expect(recorder.values == [0, 1])
    #expect(recorder.completion == .failure(Boom()))
    recorder.request(.max(1))
    #expect(recorder.values == [0, 1])
    #expect(recorder.violations.isEmpty)
  }

  /// A value sent from inside the subscriber is delivered re-entrantly, as in Combine; the
  /// failure sent after it waits for the outer call to return, and the cancel made before that
  /// ends the stream without it.
  @Test func cancelFromReceiveAfterAReentrantFailure_deliversNothingMore() {
    let children = self.children
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { value in
      if value == 0 {
        children[1].send(1)
        children[1].send(completion: .failure(Boom()))
        holder.subscription?.cancel()
      }
      return .none
    }
    flattened().subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(0)
    upstream.send(1)
    children[0].send(0)
    #expect(recorder.events == [.subscription, .value(0), .value(1)])
  }

  @Test func cancelBeforeUpstreamValues_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    recorder.cancel()
    upstream.send(0)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(children[0].subscriptionCount == 0)
  }

  @Test func cancelWithActiveChildren_cancelsEverything() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    upstream.send(0)
    children[0].send(1)
    recorder.cancel()
    children[0].send(2)
    children[0].send(completion: .finished)
    #expect(children[0].requests == [.demand(.unlimited), .cancel])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    upstream.send(completion: .finished)
    recorder.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    (0..<3).publisher.flatMap { [$0, $0].publisher }.subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(0)])
  }

  @Test func requestFromReceive_deliversHeldValues() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil) { _ in
      holder.request?(.max(1))
      return .none
    }
    flattened().subscribe(recorder)
    holder.request = recorder.request
    upstream.send(0)
    upstream.send(1)
    children[0].send(1)
    children[1].send(2)
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func transformedChildErrors_areTheChildsFailure() {
    let recorder = RecordingSubscriber<Int, Boom>()
    Publishers.Sequence<[Int], Boom>(sequence: [1, 2])
      .flatMap { value in
        value == 2
          ? Fail<Int, Boom>(error: Boom(code: value)).eraseToAnyPublisher()
          : Just(value).setFailureForFlatMapTests()
      }
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(Boom(code: 2)))])
  }

  @Test func subscription_releasedAfterCancel() {
    let subscriber = WeakSubscriber<Int, Boom>()
    flattened().subscribe(subscriber)
    upstream.send(0)
    #expect(subscriber.subscription != nil)
    subscriber.cancel()
    #expect(subscriber.subscription == nil)
  }

  @Test func subscription_releasedAfterCompletionAndFailure() {
    let finished = WeakSubscriber<Int, Never>()
    [1, 2].publisher.flatMap { Just($0) }.subscribe(finished)
    #expect(finished.isCompleted)
    #expect(finished.subscription == nil)
    // After a child's failure the upstream, not cancelled (as in Combine), still holds the
    // subscription until it ends.
    let failed = WeakSubscriber<Int, Boom>()
    flattened().subscribe(failed)
    upstream.send(0)
    children[0].send(completion: .failure(Boom()))
    #expect(failed.isCompleted)
    upstream.send(completion: .finished)
    #expect(failed.subscription == nil)
  }

  @Test func description_isFlatMap() {
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "FlatMap")
  }

  @Test func flatMap_conforms() {
    PublisherConformance(
      elements: 6,
      makePublisher: {
        [1, 2, 3].publisher.flatMap { [$0, $0].publisher }.eraseToAnyPublisher()
      },
      makeLongPublisher: {
        (0..<1_000_000).publisher.flatMap { Just($0) }.eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func flatMapLimited_conforms() {
    PublisherConformance(
      elements: 6,
      makePublisher: {
        [1, 2, 3].publisher.flatMap(maxPublishers: .max(1)) { [$0, $0].publisher }
      },
      makeLongPublisher: {
        Array(0..<1_000).publisher.flatMap(maxPublishers: .max(2)) { _ in
          Array(0..<1_000).publisher
        }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func flatMapFailing_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Publishers.Sequence<[Int], Boom>(sequence: [1, 2])
          .flatMap { Just($0).setFailureForFlatMapTests() }
      },
      makeFailingPublisher: {
        Publishers.Sequence<[Int], Boom>(sequence: [1, 2])
          .flatMap { value in
            value == 2
              ? Fail<Int, Boom>(error: Boom()).eraseToAnyPublisher()
              : Just(value).setFailureForFlatMapTests()
          }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  // MARK: Concurrency

  @Test func concurrentChildren_unlimited_nothingLostOrDuplicated() {
    let recorder = ConcurrentRecorder<Int, Boom>()
    flattened().subscribe(recorder)
    for index in children.indices { upstream.send(index) }
    upstream.send(completion: .finished)
    let children = self.children
    DispatchQueue.concurrentPerform(iterations: children.count) { index in
      for value in 0..<2_000 { children[index].send(index * 10_000 + value) }
      children[index].send(completion: .finished)
    }
    let expected = children.indices.flatMap { index in (0..<2_000).map { index * 10_000 + $0 } }
    #expect(recorder.values.sorted() == expected)
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func concurrentChildren_oneAtATime_nothingLostOrDuplicated() {
    let recorder = ConcurrentRecorder<Int, Boom>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    flattened().subscribe(recorder)
    for index in children.indices { upstream.send(index) }
    let children = self.children
    let deadline = DispatchTime.now() + .seconds(60)
    DispatchQueue.concurrentPerform(iterations: children.count) { index in
      var next = 0
      while next < 300 {
        // Send only with demand, as a conforming child does; demand comes back from the
        // delivering thread. Bounded: if demand never comes back, the values are missing and
        // the test fails instead of hanging.
        guard children[index].outstandingDemand > 0 else {
          if DispatchTime.now() >= deadline { break }
          continue
        }
        children[index].send(index * 10_000 + next)
        next += 1
      }
      children[index].send(completion: .finished)
    }
    upstream.send(completion: .finished)
    let expected = children.indices.flatMap { index in (0..<300).map { index * 10_000 + $0 } }
    #expect(recorder.values.sorted() == expected)
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
    #expect(children.allSatisfy { $0.violations.isEmpty })
  }

  @Test func cancelRacingSends_nothingAfterCancel() {
    let recorder = ConcurrentRecorder<Int, Boom>()
    flattened().subscribe(recorder)
    for index in children.indices { upstream.send(index) }
    let children = self.children
    DispatchQueue.concurrentPerform(iterations: children.count + 1) { index in
      if index == children.count {
        recorder.subscription?.cancel()
        return
      }
      for value in 0..<1_000 { children[index].send(value) }
    }
    let count = recorder.values.count
    for child in children { child.send(-1) }
    #expect(recorder.values.count == count)
    #expect(!recorder.values.contains(-1))
    #expect(children.allSatisfy { $0.requests.last == .cancel })
    #expect(recorder.violations.isEmpty)
  }

  @Test func concurrentChildFailure_failsOnce() {
    let recorder = ConcurrentRecorder<Int, Boom>()
    flattened().subscribe(recorder)
    for index in children.indices { upstream.send(index) }
    let children = self.children
    DispatchQueue.concurrentPerform(iterations: children.count) { index in
      for value in 0..<500 { children[index].send(value) }
      children[index].send(completion: .failure(Boom(code: index)))
    }
    guard case .failure? = recorder.completion else {
      Issue.record("expected a failure, got \(String(describing: recorder.completion))")
      return
    }
    #expect(recorder.violations.isEmpty)
  }

  @Test func concurrentChildFailure_childsOwnValuesAllComeFirst() {
    let recorder = ConcurrentRecorder<Int, Boom>()
    flattened().subscribe(recorder)
    for index in children.indices { upstream.send(index) }
    let children = self.children
    DispatchQueue.concurrentPerform(iterations: children.count) { index in
      for value in 0..<2_500 { children[index].send(index * 10_000 + value) }
      if index == 0 { children[0].send(completion: .failure(Boom(code: 0))) }
    }
    // Child 0's values were all sent before its failure: none is lost.
    #expect(recorder.values.filter { $0 < 10_000 } == Array(0..<2_500))
    #expect(recorder.completion == .failure(Boom(code: 0)))
    #expect(recorder.violations.isEmpty)
  }

  /// `cancel()` drops a failure still waiting for the outer delivery. It used to release it under
  /// the lock, where a deinit it triggers (here the error's own) could not call back in; the
  /// deinit probes the lock from another thread (false before the fix).
  @Test func cancelWithAFailurePending_releasesItOutsideTheLock() {
    let upstream = LockProbeSource<LockProbeSource<Int, LockProbeError>, LockProbeError>()
    let child = LockProbeSource<Int, LockProbeError>()
    let holder = SubscriptionHolder()
    let deinitFoundTheLockFree = LockedState<Bool?>(nil)
    let recorder = RecordingSubscriber<Int, LockProbeError>(initialDemand: .unlimited) { value in
      if value == 0 {
        child.send(1)  // delivered re-entrantly
        child.fail(
          LockProbeError {
            let free = lockProbeReturnsPromptly { holder.subscription?.request(.max(1)) }
            deinitFoundTheLockFree.withLock { $0 = free }
          }
        )
        holder.subscription?.cancel()
      }
      return .none
    }
    upstream.flatMap { $0 }.subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(child)
    child.send(0)
    #expect(deinitFoundTheLockFree.withLock { $0 } == true)
    #expect(recorder.values == [0, 1])  // 1 re-entrantly
    holder.subscription = nil
  }

  // As Combine, which cancels the children under its lock (OpenCombine's
  // `FlatMapTests.testCrashesWhenUpstreamFailsDuringChildCancellation`): an upstream that fails
  // again from inside a child's cancel, which its first failure caused, traps.
  @Test func upstreamFailingAgainFromAChildsCancel_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let upstream = RepeatingUpstream()
      let child = CancelHookPublisher { upstream.fail() }
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.flatMap { _ in child }.subscribe(recorder)
      upstream.send(0)
      upstream.fail()
    }
    expectTrap(
      trap,
      "flatMap: the upstream sent an event after its failure, while its children were being cancelled"
    )
  }

  // The same upstream failing again once the children are cancelled is ignored, as in Combine.
  @Test func upstreamFailingAgainAfterTheCancels_isIgnored() {
    let upstream = RepeatingUpstream()
    let child = CancelHookPublisher {}
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.flatMap { _ in child }.subscribe(recorder)
    upstream.send(0)
    upstream.fail()
    upstream.fail()
    #expect(recorder.completion == .failure(TestError()))
    #expect(recorder.events.count == 2)  // the subscription and one failure
  }
}

/// An upstream that sends whatever it is told, also after its completion.
private final class RepeatingUpstream: Publisher, @unchecked Sendable {
  // Unchecked: used on one thread.
  typealias Output = Int
  typealias Failure = TestError

  private var subscriber: AnySubscriber<Int, TestError>?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
    self.subscriber = AnySubscriber(subscriber)
    subscriber.receive(subscription: IgnoredSubscription())
  }

  func send(_ value: Int) { _ = subscriber?.receive(value) }

  func fail() { subscriber?.receive(completion: .failure(TestError())) }
}

/// A publisher whose subscription runs `onCancel` when cancelled.
private struct CancelHookPublisher: Publisher {
  typealias Output = Int
  typealias Failure = TestError

  private final class Hook: Subscription, @unchecked Sendable {
    // Unchecked: `onCancel` is immutable.
    let onCancel: () -> Void
    init(onCancel: @escaping () -> Void) { self.onCancel = onCancel }
    func request(_ demand: Subscribers.Demand) {}
    func cancel() { onCancel() }
  }

  let onCancel: () -> Void

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
    subscriber.receive(subscription: Hook(onCancel: onCancel))
  }
}

extension Just {
  /// `Just` with `TestError` as its failure type, erased (StreamCore has no
  /// `setFailureType`).
  fileprivate func setFailureForFlatMapTests() -> AnyPublisher<Output, TestError> {
    Publishers.Sequence<[Output], TestError>(sequence: [output]).eraseToAnyPublisher()
  }
}

/// Sends 7, `.finished` and then, against the protocol, a failure.
private struct FinishThenFailPublisher: Publisher {
  typealias Output = Int
  typealias Failure = TestError

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
    subscriber.receive(subscription: IgnoredSubscription())
    _ = subscriber.receive(7)
    subscriber.receive(completion: .finished)
    subscriber.receive(completion: .failure(TestError()))
  }
}
