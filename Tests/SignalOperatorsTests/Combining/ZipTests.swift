import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ZipTests {
  struct Boom: Error, Equatable {}

  let a = TestPublisher<Int, Boom>()
  let b = TestPublisher<Int, Boom>()

  private func pairs(_ recorder: RecordingSubscriber<(Int, Int), Boom>) -> [[Int]] {
    recorder.values.map { [$0.0, $0.1] }
  }

  // MARK: Basic path

  @Test func values_arePairedInOrder() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>()
    a.zip(b).subscribe(recorder)
    a.send(1)
    a.send(2)
    a.send(3)
    #expect(recorder.values.isEmpty)
    b.send(10)
    b.send(20)
    #expect(pairs(recorder) == [[1, 10], [2, 20]])
    b.send(30)
    b.send(40)
    a.send(4)
    #expect(pairs(recorder) == [[1, 10], [2, 20], [3, 30], [4, 40]])
  }

  @Test func threeUpstreams_emitTriplesInOrder() {
    let c = TestPublisher<Int, Boom>()
    let recorder = RecordingSubscriber<(Int, Int, Int), Boom>()
    a.zip(b, c).subscribe(recorder)
    a.send(1)
    a.send(2)
    b.send(10)
    #expect(recorder.values.isEmpty)
    c.send(100)
    b.send(20)
    c.send(200)
    #expect(recorder.values.map { [$0.0, $0.1, $0.2] } == [[1, 10, 100], [2, 20, 200]])
  }

  @Test func fourUpstreams_emitQuadruplesInOrder() {
    let c = TestPublisher<Int, Boom>()
    let d = TestPublisher<Int, Boom>()
    let recorder = RecordingSubscriber<(Int, Int, Int, Int), Boom>()
    Publishers.Zip4(a, b, c, d).subscribe(recorder)
    for upstream in [a, b, c] { upstream.send(1) }
    #expect(recorder.values.isEmpty)
    d.send(1)
    for upstream in [d, c, b, a] { upstream.send(2) }
    #expect(recorder.values.map { [$0.0, $0.1, $0.2, $0.3] } == [[1, 1, 1, 1], [2, 2, 2, 2]])
    c.send(completion: .finished)
    #expect(recorder.completion == .finished)
    #expect(d.requests.last == .cancel)
  }

  @Test func publisherProperties_areKept() {
    let publisher = Just(1).zip(Just(2), Just(3), Just(4))
    #expect(publisher.a == Just(1))
    #expect(publisher.d == Just(4))
    #expect(Just(1).zip(Just(2)) == Publishers.Zip(Just(1), Just(2)))
  }

  // MARK: Demand

  // Differential oracle (issue 15), K168: `zip u i0.1 v0.1 v1.0`. As Combine: a request made
  // from inside `receive(_:)` reaches the upstream whose value completed the tuple as that
  // value's returned demand, and the other upstreams as a request.
  @Test func requestFromReceive_returnedToTheUpstreamThatCompletedTheTuple() {
    let log = CallLog()
    let first = LoggedPublisher<Int, Boom>("a", log: log)
    let second = LoggedPublisher<Int, Boom>("b", log: log)
    let seen = Seen<RecordingSubscriber<(Int, Int), Boom>>()
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .unlimited) { _ in
      seen.value?.request(.max(1))
      return .none
    }
    seen.value = recorder
    first.zip(second).subscribe(recorder)
    log.calls.removeAll()
    #expect(first.send(1) == .none)
    #expect(second.send(0) == .max(1))
    #expect(log.calls == ["a.request 1"])
    #expect(pairs(recorder) == [[1, 0]])
  }

  // `zip 1 R0.1 v0.3 v1.3 v0.1 v1.2`, as Combine (OpenCombine's `Zip`): demand returned from
  // `receive(_:)` goes back only to the upstream that completed the tuple.
  @Test func returnedDemand_goesBackToTheSenderOnly() {
    let log = CallLog()
    let first = LoggedPublisher<Int, Boom>("a", log: log)
    let second = LoggedPublisher<Int, Boom>("b", log: log)
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .max(1)) { _ in .max(1) }
    first.zip(second).subscribe(recorder)
    log.calls.removeAll()
    #expect(first.send(3) == .none)
    #expect(second.send(3) == .max(1))
    #expect(log.calls == [])
  }

  @Test func downstreamDemand_isForwardedToEveryUpstream() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .max(2))
    a.zip(b).subscribe(recorder)
    #expect(a.requests == [.demand(.max(2))])
    #expect(b.requests == [.demand(.max(2))])
    recorder.request(.max(3))
    #expect(a.requests == [.demand(.max(2)), .demand(.max(3))])
    #expect(b.requests == [.demand(.max(2)), .demand(.max(3))])
  }

  @Test func demandNone_requestsAndDeliversNothingUntilRequested() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: nil)
    a.zip(b).subscribe(recorder)
    #expect(a.requests.isEmpty)
    #expect(b.requests.isEmpty)
    recorder.request(.max(1))
    #expect(a.requests == [.demand(.max(1))])
    a.send(1)
    b.send(10)
    #expect(pairs(recorder) == [[1, 10]])
  }

  @Test func valuesBeyondDemand_waitInTheirQueues() {
    let first = CombiningPushSource<Int, Boom>()
    let second = CombiningPushSource<Int, Boom>()
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: nil)
    first.zip(second).subscribe(recorder)
    first.send(1)
    first.send(2)
    second.send(10)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(pairs(recorder) == [[1, 10]])
    recorder.request(.max(1))
    #expect(pairs(recorder) == [[1, 10]])
    second.send(20)
    second.send(30)
    #expect(pairs(recorder) == [[1, 10], [2, 20]])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandMaxOne_deliversOneTuple() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .max(1))
    a.zip(b).subscribe(recorder)
    a.send(1)
    b.send(10)
    #expect(pairs(recorder) == [[1, 10]])
    #expect(a.outstandingDemand == .none)
    #expect(b.outstandingDemand == .none)
    #expect(recorder.violations.isEmpty)
  }

  // As Combine: b completed the pair, so its demand comes back from `receive`; a is not asked,
  // and with a subscriber that only returns demand the next pair never forms (a subscriber
  // that requests from inside `receive(_:)` gets every pair: the next test).
  @Test func demandReturnedFromReceive_reachesOnlyTheSender() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    a.zip(b).subscribe(recorder)
    a.send(1)
    b.send(10)
    #expect(a.requests == [.demand(.max(1))])
    #expect(b.requests == [.demand(.max(1))])
    #expect(b.outstandingDemand == .max(1))
    #expect(a.outstandingDemand == .none)
    b.send(20)
    #expect(pairs(recorder) == [[1, 10]])
    #expect(b.violations.isEmpty)
  }

  @Test func requestInsideReceive_deliversBufferedTuplesWithoutRecursion() {
    let box = CombiningBox<RecordingSubscriber<(Int, Int), Never>>()
    let depth = CombiningDepth()
    let recorder = RecordingSubscriber<(Int, Int), Never>(initialDemand: nil) { _ in
      depth.enter()
      defer { depth.leave() }
      box.value?.request(.max(1))
      return .none
    }
    box.value = recorder
    let zipped = Array(0..<1_000).publisher.zip(Array(0..<1_000).publisher)
    zipped.subscribe(recorder)
    recorder.request(.max(1))
    #expect(recorder.values.count == 1_000)
    #expect(depth.maximum == 1)
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  // MARK: Completion

  @Test func finishWithEmptyQueue_finishesAndCancelsTheOthers() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>()
    a.zip(b).subscribe(recorder)
    b.send(1)
    a.send(completion: .finished)
    #expect(recorder.completion == .finished)
    #expect(b.requests.last == .cancel)
  }

  @Test func finishWithQueuedValues_finishesOnceTheyArePaired() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>()
    a.zip(b).subscribe(recorder)
    a.send(1)
    a.send(2)
    a.send(completion: .finished)
    b.send(10)
    #expect(recorder.completion == nil)
    b.send(20)
    #expect(pairs(recorder) == [[1, 10], [2, 20]])
    #expect(recorder.completion == .finished)
    #expect(b.requests.last == .cancel)
  }

  @Test func finishWithQueuedValues_waitsForDemand() {
    let first = CombiningPushSource<Int, Boom>()
    let second = CombiningPushSource<Int, Boom>()
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .max(1))
    first.zip(second).subscribe(recorder)
    first.send(1)
    first.send(2)
    first.send(completion: .finished)
    second.send(10)
    second.send(20)
    #expect(pairs(recorder) == [[1, 10]])
    #expect(recorder.completion == nil)
    recorder.request(.max(1))
    #expect(pairs(recorder) == [[1, 10], [2, 20]])
    #expect(recorder.completion == .finished)
    #expect(second.cancelled)
  }

  @Test func failure_dropsQueuesAndCancelsTheOthers() {
    let first = CombiningPushSource<Int, Boom>()
    let second = CombiningPushSource<Int, Boom>()
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: nil)
    first.zip(second).subscribe(recorder)
    first.send(1)
    second.send(10)
    second.send(completion: .failure(Boom()))
    #expect(recorder.completion == .failure(Boom()))
    #expect(recorder.values.isEmpty)
    #expect(first.cancelled)
    #expect(second.cancelled)  // the failed one too, as Combine (`testBCancelledAfterAFailed`)
    recorder.request(.max(1))
    #expect(recorder.events.count == 2)
  }

  @Test func failureWhilePairsAreReady_deliversThemFirst() {
    let (a, b) = (self.a, self.b)
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .unlimited) { value in
      // Sent during a delivery: the pairs made before a's failure come before it.
      if value.0 == 0 {
        a.send(1)
        b.send(10)
        b.send(20)
        a.send(2)
        a.send(3)
        a.send(completion: .failure(Boom()))
      }
      return .none
    }
    a.zip(b).subscribe(recorder)
    a.send(0)
    b.send(0)
    #expect(pairs(recorder) == [[0, 0], [1, 10], [2, 20]])
    #expect(recorder.completion == .failure(Boom()))
    #expect(recorder.violations.isEmpty)
    #expect(b.requests.last == .cancel)
  }

  @Test func failureWhilePairsAreReadyWithoutDemand_doesNotWaitForDemand() {
    let (a, b) = (self.a, self.b)
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .max(2)) { value in
      if value.0 == 0 {
        a.send(1)
        b.send(10)  // paired with the last demand
        a.send(completion: .failure(Boom()))
      }
      return .none
    }
    a.zip(b).subscribe(recorder)
    a.send(0)
    b.send(0)
    #expect(pairs(recorder) == [[0, 0], [1, 10]])
    #expect(recorder.completion == .failure(Boom()))
    recorder.request(.max(1))
    #expect(recorder.events.count == 4)
    #expect(recorder.violations.isEmpty)
  }

  @Test func emptyUpstream_finishesAtSubscription() {
    let recorder = RecordingSubscriber<(Int, Int), Never>()
    Just(1).zip(Empty<Int, Never>()).subscribe(recorder)
    #expect(recorder.events.count == 2)
    #expect(recorder.completion == .finished)
  }

  @Test func synchronousUpstreams_pairToTheShorter() {
    let recorder = RecordingSubscriber<(Int, Int), Never>()
    [1, 2, 3].publisher.zip([10, 20].publisher).subscribe(recorder)
    #expect(recorder.values.map { [$0.0, $0.1] } == [[1, 10], [2, 20]])
    #expect(recorder.completion == .finished)
  }

  // MARK: Cancel

  @Test func cancelInsideReceiveSubscription_cancelsTheUpstreams() {
    // The upstreams are subscribed before the subscriber (as Combine), so a cancel from
    // inside `receive(subscription:)` cancels them.
    let subscriber = AnySubscriber<(Int, Int), Boom>(
      receiveSubscription: { $0.cancel() },
      receiveValue: { _ in .none }
    )
    a.zip(b).subscribe(subscriber)
    #expect(a.subscriptionCount == 1)
    #expect(b.subscriptionCount == 1)
    #expect(a.requests == [.cancel])
    #expect(b.requests == [.cancel])
  }

  @Test func upstreamsAreSubscribedBeforeTheSubscriber() {
    let seen = Seen<[Int]>()
    let (a, b) = (self.a, self.b)
    let subscriber = AnySubscriber<(Int, Int), Boom>(
      receiveSubscription: { _ in seen.value = [a.subscriptionCount, b.subscriptionCount] },
      receiveValue: { _ in .none }
    )
    a.zip(b).subscribe(subscriber)
    #expect(seen.value == [1, 1])
  }

  @Test func unlimitedDemand_completingUpstreamGetsTheReturnedDemand() {
    // As Combine: the upstream whose value completed the tuple gets the subscriber's demand
    // back from `receive(_:)`, also when the demand is unlimited.
    let first = CombiningPushSource<Int, Boom>()
    let second = CombiningPushSource<Int, Boom>()
    let recorder = RecordingSubscriber<(Int, Int), Boom>(demandPerValue: .max(1))
    first.zip(second).subscribe(recorder)
    #expect(first.send(1) == .none)
    #expect(second.send(10) == .max(1))
    #expect(pairs(recorder) == [[1, 10]])
  }

  @Test func failure_reachesTheSubscriberBeforeTheOthersAreCancelled() {
    let first = CombiningPushSource<Int, Boom>()
    let second = CombiningPushSource<Int, Boom>()
    let seen = Seen<Bool>()
    let subscriber = AnySubscriber<(Int, Int), Boom>(
      receiveSubscription: { $0.request(.unlimited) },
      receiveValue: { _ in .none },
      receiveCompletion: { _ in seen.value = first.cancelled }
    )
    first.zip(second).subscribe(subscriber)
    second.send(completion: .failure(Boom()))
    #expect(seen.value == false)
    #expect(first.cancelled)
  }

  @Test func cancel_cancelsUpstreamsAndStopsDelivery() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>()
    a.zip(b).subscribe(recorder)
    a.send(1)
    recorder.cancel()
    #expect(a.requests.last == .cancel)
    #expect(b.requests.last == .cancel)
    b.send(2)
    b.send(completion: .finished)
    #expect(recorder.events.count == 1)
  }

  @Test func cancelInsideReceive_stopsFurtherDelivery() {
    let box = CombiningBox<RecordingSubscriber<(Int, Int), Boom>>()
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: nil) { _ in
      box.value?.cancel()
      return .none
    }
    box.value = recorder
    a.zip(b).subscribe(recorder)
    recorder.request(.max(3))
    for value in 1...2 {
      a.send(value)
      b.send(value)
    }
    #expect(pairs(recorder) == [[1, 1]])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>()
    a.zip(b).subscribe(recorder)
    let subscription = recorder.subscription
    a.send(completion: .finished)
    let requestsBefore = b.requests
    subscription?.cancel()
    #expect(b.requests == requestsBefore)
    #expect(recorder.events.count == 2)
  }

  @Test func subscription_isReleasedAfterCancel() {
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<(Int, Int), Boom>()
      a.zip(b).subscribe(recorder)
      a.send(1)
      weakSubscription = recorder.subscription as AnyObject?
      #expect(weakSubscription != nil)
      recorder.cancel()
    }
    #expect(weakSubscription == nil)
  }

  @Test func subscription_isReleasedAfterCompletion() {
    weak var weakSubscription: AnyObject?
    do {
      let recorder = RecordingSubscriber<(Int, Int), Boom>()
      a.zip(b).subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      a.send(1)
      b.send(2)
      a.send(completion: .finished)
      #expect(recorder.completion == .finished)
    }
    #expect(weakSubscription == nil)
  }

  @Test func subscription_isDescribedAsZip() {
    let recorder = RecordingSubscriber<(Int, Int), Boom>()
    a.zip(b).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Zip")
  }

  @Test func subscription_mirrorsItsDownstreamAndDemand_andPlaysAsZip() throws {
    let recorder = RecordingSubscriber<(Int, Int), Boom>(initialDemand: .max(2))
    a.zip(b).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "demand"])
    #expect(Array(mirror.children).last?.value as? Subscribers.Demand == .max(2))
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == "Zip")
  }

  @Test func upstreamSubscribers_areDescribedAsZip_withNoChildren() throws {
    // Oracle K169 (`zip -`), intended I14: the operator's name, not an internal type name.
    let first = UpstreamSubscriberCapture()
    let second = UpstreamSubscriberCapture()
    first.zip(second).subscribe(RecordingSubscriber<(Int, Int), Never>())
    for capture in [first, second] {
      let subscriber = try #require(capture.subscriber)
      #expect(String(describing: subscriber) == "Zip")
      #expect(Mirror(reflecting: subscriber).children.isEmpty)
      let playground = (subscriber as? any CustomPlaygroundDisplayConvertible)?
        .playgroundDescription
      #expect(playground as? String == "Zip")
    }
    let third = UpstreamSubscriberCapture()
    Publishers.CombineLatest(first, third).subscribe(RecordingSubscriber<(Int, Int), Never>())
    #expect(third.subscriber.map { String(describing: $0) } == "CombineLatest")
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let recorder = RecordingSubscriber<(Int, Int), Never>(initialDemand: nil)
      Just(1).zip(Just(2)).subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  // MARK: Conformance

  @Test func zip_conforms() {
    typealias Source = Publishers.Sequence<[Int], Boom>
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Source(sequence: [1, 2, 3]).zip(Source(sequence: [4, 5, 6, 7])).eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Source(sequence: [1]).zip(Fail(error: Boom())).eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Source(sequence: Array(0..<1_000_000)).zip(Source(sequence: Array(0..<1_000_000)))
          .eraseToAnyPublisher()
      }
    )
    // Not SC-1.02: as Combine's, a demand returned from `receive(_:)` goes back only to the
    // upstream whose value completed the tuple, so a subscriber that only returns demand stalls
    // (`demandReturnedFromReceive_reachesOnlyTheSender`).
    .run(ConformanceRule.all.filter { $0.id != "SC-1.02" })
    .expectAllPassed()
  }

  @Test func zip3_conforms() {
    typealias Source = Publishers.Sequence<[Int], Never>
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Source(sequence: [1, 2]).zip(Source(sequence: [3, 4]), Source(sequence: [5, 6, 7]))
      }
    )
    .run(ConformanceRule.all.filter { $0.id != "SC-1.02" })  // as `zip_conforms`
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  // MARK: Concurrency

  @Test func concurrentSends_pairEveryValueExactlyOnceInOrder() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let probe = CombiningProbe<(Int, Int)>()
    first.zip(second).subscribe(probe)
    let count = 10_000
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      let subject = side == 0 ? first : second
      for value in 0..<count { subject.send(value) }
    }
    let values = probe.values.map { [$0.0, $0.1] }
    #expect(values == (0..<count).map { [$0, $0] })
    #expect(probe.violations.isEmpty)
  }

  @Test func concurrentSendsOnFourUpstreams_pairEveryValueExactlyOnce() {
    let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
    let probe = CombiningProbe<(Int, Int, Int, Int)>()
    subjects[0].zip(subjects[1], subjects[2], subjects[3]).subscribe(probe)
    let count = 5_000
    DispatchQueue.concurrentPerform(iterations: 4) { side in
      for value in 0..<count { subjects[side].send(value) }
    }
    let values = probe.values.map { [$0.0, $0.1, $0.2, $0.3] }
    #expect(values == (0..<count).map { [$0, $0, $0, $0] })
    #expect(probe.violations.isEmpty)
  }

  @Test func concurrentSendsWithDemandOfOne_neverExceedDemandAndLoseNothing() {
    let first = CombiningProducer<Int>()
    let second = CombiningProducer<Int>()
    // One more requested from inside each `receive(_:)`: returned demand would go back to one
    // upstream only, as in Combine.
    let probe = CombiningProbe<(Int, Int)>(
      initialDemand: .max(1),
      demandPerValue: .max(1),
      requestsFromReceive: true
    )
    first.zip(second).subscribe(probe)
    let count = 300  // every pair waits for both producers: keep it short on a busy machine
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      let producer = side == 0 ? first : second
      for value in 0..<count { producer.send(value) }
    }
    let values = probe.values.map { [$0.0, $0.1] }
    #expect(values == (0..<count).map { [$0, $0] })
    #expect(probe.violations.isEmpty)
  }

  @Test func concurrentRequestsAndSends_deliverEveryPair() {
    // Both producers wait for demand: a subject would drop a value sent before zip's request
    // for it arrived, which this race makes likely.
    let first = CombiningProducer<Int>()
    let second = CombiningProducer<Int>()
    let recorder = RecordingSubscriber<(Int, Int), Never>(initialDemand: nil)
    first.zip(second).subscribe(recorder)
    let count = 2_000
    DispatchQueue.concurrentPerform(iterations: 3) { side in
      for value in 0..<count {
        switch side {
        case 0: recorder.request(.max(1))
        case 1: first.send(value)
        default: second.send(value)
        }
      }
    }
    #expect(recorder.values.map { [$0.0, $0.1] } == (0..<count).map { [$0, $0] })
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelRacingSends_stopsDeliveryAndReleases() {
    weak var weakSubscription: AnyObject?
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    do {
      let recorder = RecordingSubscriber<(Int, Int), Never>()
      first.zip(second).subscribe(recorder)
      weakSubscription = recorder.subscription as AnyObject?
      DispatchQueue.concurrentPerform(iterations: 3) { side in
        for value in 0..<2_000 {
          switch side {
          case 0: first.send(value)
          case 1: second.send(value)
          default: if value == 500 { recorder.cancel() }
          }
        }
      }
      let delivered = recorder.values
      #expect(delivered.map { [$0.0, $0.1] } == (0..<delivered.count).map { [$0, $0] })
      first.send(-1)
      second.send(-1)
      #expect(recorder.values.count == delivered.count)
    }
    #expect(weakSubscription == nil)
  }

  /// `cancel()` drops a failure still waiting for the outer delivery. It used to release it under
  /// the lock, where a deinit it triggers (here the error's own) could not call back in; the
  /// deinit probes the lock from another thread (false before the fix).
  @Test func cancelWithAFailurePending_releasesItOutsideTheLock() {
    let a = LockProbeSource<Int, LockProbeError>()
    let b = LockProbeSource<Int, LockProbeError>()
    let holder = SubscriptionHolder()
    let deinitFoundTheLockFree = LockedState<Bool?>(nil)
    let recorder = RecordingSubscriber<Int, LockProbeError>(initialDemand: .unlimited) { value in
      if value == 0 {
        a.send(1)
        b.send(1)  // a tuple delivered re-entrantly
        a.fail(
          LockProbeError {
            let free = lockProbeReturnsPromptly { holder.subscription?.request(.max(1)) }
            deinitFoundTheLockFree.withLock { $0 = free }
          }
        )
        holder.subscription?.cancel()
      }
      return .none
    }
    a.zip(b) { $0 + $1 }.subscribe(recorder)
    holder.subscription = recorder.subscription
    a.send(0)
    b.send(0)
    #expect(deinitFoundTheLockFree.withLock { $0 } == true)
    #expect(recorder.values == [0, 2])
    holder.subscription = nil
  }
}

/// A publisher that keeps the subscriber it is given, to look at it, and hands it an empty
/// subscription.
// Sendable: used on one thread only.
private final class UpstreamSubscriberCapture: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  var subscriber: Any?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = subscriber
    subscriber.receive(subscription: Subscriptions.empty)
  }
}
