import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MergeTests {
  struct Boom: Error, Equatable {}

  let a = TestPublisher<Int, Boom>()
  let b = TestPublisher<Int, Boom>()
  let c = TestPublisher<Int, Boom>()

  // MARK: Basic path

  @Test func twoUpstreams_valuesInArrivalOrder() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(3)
    b.send(4)
    #expect(recorder.values == [1, 2, 3, 4])
    #expect(a.requests == [.demand(.unlimited)])
    #expect(b.requests == [.demand(.unlimited)])
  }

  @Test func synchronousUpstreams_subscribedInOrderAfterTheSubscriber() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2].publisher.merge(with: [3, 4].publisher).subscribe(recorder)
    #expect(
      recorder.events == [
        .subscription, .value(1), .value(2), .value(3), .value(4), .completion(.finished),
      ]
    )
  }

  @Test func threeUpstreams_mergeAllAndFinishAfterTheLast() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b, c).subscribe(recorder)
    c.send(1)
    a.send(2)
    b.send(3)
    a.send(completion: .finished)
    c.send(completion: .finished)
    #expect(recorder.completion == nil)
    b.send(4)
    b.send(completion: .finished)
    #expect(
      recorder.events == [
        .subscription, .value(1), .value(2), .value(3), .value(4), .completion(.finished),
      ]
    )
  }

  @Test func eightUpstreams_eachAskedForUnlimited() {
    let ups = (0..<8).map { _ in TestPublisher<Int, Boom>() }
    let recorder = RecordingSubscriber<Int, Boom>()
    ups[0].merge(with: ups[1], ups[2], ups[3], ups[4], ups[5], ups[6], ups[7])
      .subscribe(recorder)
    for (index, upstream) in ups.enumerated().reversed() { upstream.send(index) }
    for upstream in ups { upstream.send(completion: .finished) }
    #expect(recorder.values == [7, 6, 5, 4, 3, 2, 1, 0])
    #expect(recorder.completion == .finished)
    #expect(ups.allSatisfy { $0.requests == [.demand(.unlimited)] })
  }

  @Test func structs_keepTheirUpstreamsAndCompareEqual() {
    let merge = Publishers.Merge(Just(1), Just(2))
    #expect(merge.a == Just(1))
    #expect(merge.b == Just(2))
    #expect(merge == Just(1).merge(with: Just(2)))
    #expect(Publishers.Merge3(Just(1), Just(2), Just(3)) != Just(1).merge(with: Just(2), Just(4)))
    let eight = Just(1).merge(with: Just(2), Just(3), Just(4), Just(5), Just(6), Just(7), Just(8))
    #expect(eight.h == Just(8))
  }

  @Test func mergeFourToSeven_deliverEveryValue() {
    let recorder = RecordingSubscriber<Int, Never>()
    let cancellables = [
      Just(1).merge(with: Just(2), Just(3)).collectForTest(),
      Just(1).merge(with: Just(2), Just(3), Just(4)).collectForTest(),
      Just(1).merge(with: Just(2), Just(3), Just(4), Just(5)).collectForTest(),
      Just(1).merge(with: Just(2), Just(3), Just(4), Just(5), Just(6)).collectForTest(),
      Just(1).merge(with: Just(2), Just(3), Just(4), Just(5), Just(6), Just(7)).collectForTest(),
    ]
    #expect(
      cancellables == [
        [1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6],
        [1, 2, 3, 4, 5, 6, 7],
      ]
    )
    _ = recorder
  }

  @Test func subscription_describedAsMerge() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Merge")
    let recorder3 = RecordingSubscriber<Int, Boom>()
    a.merge(with: b, c).subscribe(recorder3)
    #expect(recorder3.subscriptionDescription == "Merge")
  }

  // MARK: Demand

  @Test func noDemand_nothingRequestedOrDeliveredUntilRequested() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    a.merge(with: b).subscribe(recorder)
    #expect(a.requests.isEmpty)
    #expect(b.requests.isEmpty)
    recorder.request(.max(2))
    #expect(a.requests == [.demand(.max(2))])
    #expect(b.requests == [.demand(.max(2))])
    a.send(1)
    b.send(2)
    #expect(recorder.values == [1, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func eachRequest_forwardedWholeToEveryUpstreamNotFinished() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(3))
    a.merge(with: b, c).subscribe(recorder)
    #expect([a, b, c].allSatisfy { $0.requests == [.demand(.max(3))] })
    b.send(completion: .finished)
    recorder.request(.max(2))
    #expect(a.requests == [.demand(.max(3)), .demand(.max(2))])
    #expect(b.requests == [.demand(.max(3))])
    #expect(c.requests == [.demand(.max(3)), .demand(.max(2))])
    recorder.request(.unlimited)
    recorder.request(.max(4))  // changes nothing once the demand is unlimited
    #expect(a.requests == [.demand(.max(3)), .demand(.max(2)), .demand(.unlimited)])
    #expect(c.requests == [.demand(.max(3)), .demand(.max(2)), .demand(.unlimited)])
  }

  @Test func maxOne_secondUpstreamsValueWaitsForDemand() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1))
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    b.send(2)
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2])  // the waiting value took the new demand
    #expect(a.requests == [.demand(.max(1)), .demand(.max(1))])
    #expect(b.requests == [.demand(.max(1)), .demand(.max(1))])
    #expect(a.violations.isEmpty && b.violations.isEmpty && recorder.violations.isEmpty)
  }

  @Test func valuesBeyondDemand_queuedInOrder_deliveredAsDemandArrives() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(2))
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(3)  // each upstream was asked for two: these two wait
    b.send(4)
    #expect(recorder.values == [1, 2])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2, 3])  // never more than requested
    recorder.request(.max(5))
    #expect(recorder.values == [1, 2, 3, 4])
    #expect(a.violations.isEmpty && b.violations.isEmpty && recorder.violations.isEmpty)
  }

  @Test func demandReturnedFromReceive_goesBackToTheSendingUpstreamOnly() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1), demandPerValue: .max(3))
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    #expect(a.outstandingDemand == .max(3))  // returned from its `receive(_:)`
    #expect(b.outstandingDemand == .max(1))
    #expect(a.requests == [.demand(.max(1))])
    #expect(b.requests == [.demand(.max(1))])  // not requested from the others
    b.send(2)
    a.send(3)
    #expect(recorder.values == [1, 2, 3])
    #expect(b.outstandingDemand == .max(3))
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandReturnedForAQueuedValue_addedToTheSubscribersDemandOnly() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(2)) { value in
      value == 3 ? .max(1) : .none
    }
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    a.send(2)
    b.send(3)  // beyond the demand: both wait
    b.send(4)
    #expect(recorder.values == [1, 2])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2, 3, 4])  // 3's returned demand took 4
    #expect(a.requests == [.demand(.max(2)), .demand(.max(1))])
    #expect(b.requests == [.demand(.max(2)), .demand(.max(1))])
    #expect(b.outstandingDemand == .max(1))
  }

  @Test func requestFromReceive_forwardedAtOnce_whatItBringsGoesDownAfterTheCall() {
    let echo = SendsFromRequest(100)
    let probe = MergeProbe<Int, Boom>(initialDemand: .max(1))
    probe.onValue = { [unowned probe] value in
      if value == 1 { probe.subscription?.request(.max(2)) }
      return .none
    }
    a.merge(with: echo).subscribe(probe)
    echo.armed = true
    a.send(1)
    #expect(a.requests == [.demand(.max(1)), .demand(.max(2))])
    #expect(echo.requested == [.max(1), .max(2)])
    #expect(probe.values == [1, 100])
    #expect(probe.overlaps == 0)  // 100, sent from inside the request, went down after the call
  }

  @Test func demandBecomesUnlimited_everyUpstreamAskedForUnlimited() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1))
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    b.send(2)
    recorder.request(.unlimited)
    a.send(3)
    b.send(4)
    a.send(5)
    #expect(recorder.values == [1, 2, 3, 4, 5])
    #expect(a.requests == [.demand(.max(1)), .demand(.unlimited)])
    #expect(b.requests == [.demand(.max(1)), .demand(.unlimited)])
  }

  @Test func requestNone_isIgnored_asCombineDoes() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Just(1).merge(with: Just(2)).subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(recorder.values.isEmpty)
    recorder.subscription?.request(.max(1))
    #expect(recorder.values.count == 1)  // one value, as asked
  }

  // MARK: Completion

  @Test func upstreamFinishesBeforeValues_othersStillDeliver() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b).subscribe(recorder)
    a.send(completion: .finished)
    b.send(1)
    b.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func finishedWithValueWaiting_completionAfterTheValue() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1))
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(completion: .finished)
    b.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1)])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func failureAfterValues_failsOnceAndCancelsTheOthers() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b, c).subscribe(recorder)
    a.send(1)
    b.send(2)
    b.send(completion: .failure(Boom()))
    a.send(3)
    c.send(completion: .failure(Boom()))
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .completion(.failure(Boom()))]
    )
    #expect(a.requests == [.demand(.unlimited), .cancel])
    #expect(b.requests == [.demand(.unlimited)])
    #expect(c.requests == [.demand(.unlimited), .cancel])
  }

  @Test func failureBeforeValues_dropsWaitingValues() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1))
    a.merge(with: b).subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(completion: .failure(Boom()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(Boom()))])
    #expect(b.requests == [.demand(.max(1)), .cancel])
  }

  @Test func failingFirstUpstream_laterUpstreamsNotSubscribed() {
    let recorder = RecordingSubscriber<Int, Boom>()
    Fail<Int, Boom>(error: Boom()).merge(with: a).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(Boom()))])
    #expect(a.subscriptionCount == 0)
  }

  // MARK: Cancellation

  @Test func cancelBeforeValues_cancelsEveryUpstream() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b).subscribe(recorder)
    recorder.cancel()
    a.send(1)
    #expect(recorder.events == [.subscription])
    #expect(a.requests == [.demand(.unlimited), .cancel])
    #expect(b.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancelInsideReceiveSubscription_noUpstreamSubscribed() {
    let probe = MergeProbe<Int, Boom>(initialDemand: .none)
    let canceller = CancelOnSubscription(probe)
    a.merge(with: b).subscribe(canceller)
    #expect(a.subscriptionCount == 0)
    #expect(b.subscriptionCount == 0)
  }

  @Test func cancelFromReceive_nothingMoreDelivered() {
    let probe = MergeProbe<Int, Boom>(initialDemand: .unlimited)
    probe.onValue = { [unowned probe] value in
      if value == 2 { probe.cancel() }
      return .none
    }
    a.merge(with: b).subscribe(probe)
    a.send(1)
    b.send(2)
    a.send(3)
    b.send(4)
    #expect(probe.values == [1, 2])
    #expect(probe.lateValues == 0)
    #expect(a.requests.last == .cancel)
    #expect(b.requests.last == .cancel)
  }

  @Test func requestFromReceive_deliversWithoutRecursion() {
    let probe = MergeProbe<Int, Never>(initialDemand: .max(1))
    probe.onValue = { [unowned probe] _ in
      probe.subscription?.request(.max(1))
      return .none
    }
    Publishers.Sequence<ClosedRange<Int>, Never>(sequence: 1...100_000)
      .merge(with: Publishers.Sequence(sequence: 1...3))
      .subscribe(probe)
    #expect(probe.values.count == 100_003)
    #expect(probe.completions == [.finished])
    #expect(probe.overlaps == 0)
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b).subscribe(recorder)
    let subscription = recorder.subscription
    a.send(completion: .finished)
    b.send(completion: .finished)
    subscription?.cancel()
    #expect(a.requests == [.demand(.unlimited)])
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func cancelTwice_cancelsUpstreamsOnce() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.merge(with: b).subscribe(recorder)
    let subscription = recorder.subscription
    subscription?.cancel()
    subscription?.cancel()
    #expect(a.requests == [.demand(.unlimited), .cancel])
  }

  @Test func afterCancel_subscriptionReleased() {
    weak var weakInner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, Boom>()
      a.merge(with: b).subscribe(recorder)
      weakInner = recorder.subscription.map { $0 as AnyObject }
      #expect(weakInner != nil)
      recorder.cancel()
    }
    #expect(weakInner == nil)
  }

  @Test func afterCompletion_subscriptionAndSubscriberReleased() {
    weak var weakInner: AnyObject?
    weak var weakRecorder: RecordingSubscriber<Int, Boom>?
    do {
      let recorder = RecordingSubscriber<Int, Boom>()
      weakRecorder = recorder
      a.merge(with: b).subscribe(recorder)
      weakInner = recorder.subscription.map { $0 as AnyObject }
      a.send(1)
      a.send(completion: .finished)
      b.send(completion: .finished)
    }
    #expect(weakInner == nil)
    #expect(weakRecorder == nil)
  }

  @Test func afterFailure_subscriptionReleased() {
    weak var weakInner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, Boom>()
      a.merge(with: b).subscribe(recorder)
      weakInner = recorder.subscription.map { $0 as AnyObject }
      b.send(completion: .failure(Boom()))
    }
    #expect(weakInner == nil)
  }

  /// Combine delivers a value sent from inside the subscriber re-entrantly, inside the call
  /// that sent it (its downstream lock belongs to the sending thread); so does the gate.
  @Test func sendIntoOtherUpstreamFromReceive_deliveredReentrantly() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    let probe = MergeProbe<Int, Never>(initialDemand: .unlimited)
    probe.onValue = { value in
      if value < 3 { second.send(value + 10) }
      if value == 11 { first.send(2) }
      return .none
    }
    first.merge(with: second).subscribe(probe)
    first.send(1)
    #expect(probe.values == [1, 11, 2, 12])
    #expect(probe.overlaps == 3)  // each one inside the call that sent it
  }

  @Test func requestsFromAnotherThreadWhileSending_demandNeverExceeded() {
    let subjects = (0..<2).map { _ in PassthroughSubject<Int, Never>() }
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    subjects[0].merge(with: subjects[1]).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 3) { thread in
      if thread == 2 {
        for _ in 0..<2_000 { recorder.request(.max(1)) }
      } else {
        for value in 0..<5_000 { subjects[thread].send(thread * 5_000 + value) }
      }
    }
    let values = recorder.values
    #expect(values.count <= 2_000)
    #expect(Set(values).count == values.count)
    #expect(recorder.violations.isEmpty)
  }

  // MARK: Conformance

  @Test func conformance_passes() {
    typealias Upstream = AnyPublisher<Int, Boom>
    PublisherConformance(
      elements: 5,
      makePublisher: {
        Publishers.Sequence<[Int], Boom>(sequence: [1, 2, 3]).eraseToAnyPublisher()
          .merge(with: Publishers.Sequence(sequence: [4, 5]).eraseToAnyPublisher())
      },
      makeFailingPublisher: {
        Publishers.Sequence<[Int], Boom>(sequence: [1]).eraseToAnyPublisher()
          .merge(with: Fail<Int, Boom>(error: Boom()).eraseToAnyPublisher())
      },
      makeLongPublisher: {
        Publishers.Sequence<[Int], Boom>(sequence: Array(0..<1_000_000)).eraseToAnyPublisher()
          .merge(with: Publishers.Sequence(sequence: [1]).eraseToAnyPublisher())
      }
    )
    .run()
    .expectAllPassed()
  }

  @Test func conformance_eightUpstreams_passes() {
    let make: @Sendable (Int) -> Publishers.Sequence<[Int], Never> = { base in
      Publishers.Sequence(sequence: [base, base + 1])
    }
    PublisherConformance(
      elements: 16,
      makePublisher: {
        make(0).merge(with: make(2), make(4), make(6), make(8), make(10), make(12), make(14))
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  // MARK: Concurrency

  @Test func concurrentSends_nothingLostOrDuplicated_neverOverlapping() {
    let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
    let probe = MergeProbe<Int, Never>(initialDemand: .unlimited)
    subjects[0].merge(
      with: subjects[1],
      subjects[2],
      subjects[3],
      subjects[4],
      subjects[5],
      subjects[6],
      subjects[7]
    ).subscribe(probe)
    let perThread = 20_000
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for value in 0..<perThread { subjects[thread].send(thread * perThread + value) }
    }
    let values = probe.values
    #expect(values.count == 8 * perThread)
    #expect(Set(values).count == 8 * perThread)
    #expect(probe.overlaps == 0)
    for thread in 0..<8 {  // each upstream's values stay in order
      let own = values.filter { $0 / perThread == thread }
      #expect(own == Array(thread * perThread..<(thread + 1) * perThread))
    }
  }

  @Test func concurrentSendsWithDemandOfOne_neverExceedDemandAndLoseNothing() {
    let producers = (0..<3).map { _ in CombiningProducer<Int>() }
    // One more requested from inside each `receive(_:)`: returned demand would go back to the
    // sending upstream only, as in Combine.
    let probe = CombiningProbe<Int>(
      initialDemand: .max(1),
      demandPerValue: .max(1),
      requestsFromReceive: true
    )
    producers[0].merge(with: producers[1], producers[2]).subscribe(probe)
    let count = 2_000
    DispatchQueue.concurrentPerform(iterations: 3) { thread in
      for value in 0..<count { producers[thread].send(thread * count + value) }
    }
    let values = probe.values
    #expect(values.count == 3 * count)
    for thread in 0..<3 {  // each upstream's values stay in order
      let own = values.filter { $0 / count == thread }
      #expect(own == Array(thread * count..<(thread + 1) * count))
    }
    #expect(probe.violations.isEmpty)
  }

  @Test func concurrentSendsWithLimitedDemand_demandNeverExceeded() {
    let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    subjects[0].merge(with: subjects[1], subjects[2], subjects[3]).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<5_000 { subjects[thread].send(thread * 5_000 + value) }
    }
    let values = recorder.values
    #expect(!values.isEmpty)
    #expect(Set(values).count == values.count)
    #expect(recorder.violations.isEmpty)
  }

  @Test func failureWhileValuesAreQueued_deliversThemFirst() {
    let a = PassthroughSubject<Int, Boom>()
    let b = PassthroughSubject<Int, Boom>()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { value in
      // Sent during a delivery, so queued: a's values come before its failure.
      if value == 0 {
        a.send(1)
        a.send(2)
        a.send(completion: .failure(Boom()))
      }
      return .none
    }
    a.merge(with: b).subscribe(recorder)
    b.send(0)
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.completion == .failure(Boom()))
    #expect(recorder.violations.isEmpty)
  }

  @Test func failureWhileValuesAreQueuedWithoutDemand_doesNotWaitForDemand() {
    let a = PassthroughSubject<Int, Boom>()
    let b = PassthroughSubject<Int, Boom>()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1)) { value in
      if value == 0 {
        a.send(1)  // asked for, but no downstream demand left: queued
        a.send(completion: .failure(Boom()))
      }
      return .none
    }
    a.merge(with: b).subscribe(recorder)
    b.send(0)
    #expect(recorder.values == [0])
    #expect(recorder.completion == .failure(Boom()))
    #expect(recorder.violations.isEmpty)
  }

  @Test func oneUpstreamFailsWhileOthersSend_failsOnceNothingAfter() {
    let subjects = (0..<4).map { _ in PassthroughSubject<Int, Boom>() }
    let probe = MergeProbe<Int, Boom>(initialDemand: .unlimited)
    subjects[0].merge(with: subjects[1], subjects[2], subjects[3]).subscribe(probe)
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<5_000 {
        if thread == 0, value == 2_500 {
          subjects[0].send(completion: .failure(Boom()))
        } else {
          subjects[thread].send(value)
        }
      }
    }
    #expect(probe.completions == [.failure(Boom())])
    #expect(probe.lateValues == 0)
    #expect(probe.overlaps == 0)
    #expect(probe.values.count >= 2_500)
  }

  @Test func cancelRacingSends_stopsAndReleases() {
    weak var weakInner: AnyObject?
    let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
    do {
      let probe = MergeProbe<Int, Never>(initialDemand: .unlimited)
      subjects[0].merge(with: subjects[1], subjects[2]).subscribe(probe)
      weakInner = probe.subscription.map { $0 as AnyObject }
      DispatchQueue.concurrentPerform(iterations: 4) { thread in
        if thread == 3 {
          for _ in 0..<1_000 { subjects[0].send(-1) }
          probe.cancel()
          return
        }
        for value in 0..<10_000 { subjects[thread].send(value) }
      }
      #expect(probe.overlaps == 0)
      #expect(probe.lateValues <= 3)  // at most one value already on its way per sender
      #expect(probe.completions.isEmpty)
    }
    #expect(weakInner == nil)
  }

  /// `cancel()` drops a failure still waiting behind queued values. It used to release it under
  /// the lock, where a deinit it triggers (here the error's own) could not call back in; the
  /// deinit probes the lock from another thread (false before the fix).
  @Test func cancelWithAFailurePending_releasesItOutsideTheLock() {
    let a = LockProbeSource<Int, LockProbeError>()
    let b = LockProbeSource<Int, LockProbeError>()
    let holder = SubscriptionHolder()
    let deinitFoundTheLockFree = LockedState<Bool?>(nil)
    let recorder = RecordingSubscriber<Int, LockProbeError>(initialDemand: .unlimited) { value in
      if value == 0 {
        a.send(1)  // delivered re-entrantly
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
    a.merge(with: b).subscribe(recorder)
    holder.subscription = recorder.subscription
    b.send(0)
    #expect(deinitFoundTheLockFree.withLock { $0 } == true)
    #expect(recorder.values == [0, 1])
    holder.subscription = nil
  }
}

extension Publisher where Failure == Never {
  /// Subscribes with unlimited demand and returns the values received synchronously.
  fileprivate func collectForTest() -> [Output] {
    let recorder = RecordingSubscriber<Output, Never>()
    subscribe(recorder)
    return recorder.values
  }
}

/// Cancels its subscription from inside `receive(subscription:)`.
private final class CancelOnSubscription<Input: Sendable, Failure: Error>: Subscriber {
  let probe: MergeProbe<Input, Failure>

  init(_ probe: MergeProbe<Input, Failure>) {
    self.probe = probe
  }

  func receive(subscription: any Subscription) {
    subscription.cancel()
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    probe.receive(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    probe.receive(completion: completion)
  }
}

/// Sends `value` from inside the first `request(_:)` made once `armed`; records the requests.
private final class SendsFromRequest: Publisher, Subscription, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = MergeTests.Boom

  let value: Int
  var armed = false
  private(set) var requested: [Subscribers.Demand] = []
  private var subscriber: AnySubscriber<Int, MergeTests.Boom>?

  init(_ value: Int) {
    self.value = value
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == MergeTests.Boom {
    self.subscriber = AnySubscriber(subscriber)
    subscriber.receive(subscription: self)
  }

  func request(_ demand: Subscribers.Demand) {
    requested.append(demand)
    guard armed else { return }
    armed = false
    _ = subscriber?.receive(value)
  }

  func cancel() {
    subscriber = nil
  }
}
