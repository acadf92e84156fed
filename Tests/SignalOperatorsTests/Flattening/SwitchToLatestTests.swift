import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SwitchToLatestTests {
  typealias Boom = TestError

  let upstream = TestPublisher<TestPublisher<Int, Boom>, Boom>()
  let inners = (0..<3).map { _ in TestPublisher<Int, Boom>() }

  // Differential oracle (issue 15), misbehaving upstream: `switchToLatest - v0.0 V1.1`. As
  // Combine: the current publisher sending a value nobody asked for traps.
  @Test func innerValueBeyondDemand_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let inner = LoggedPublisher<Int, TestError>("inner", log: CallLog())
      let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
      Just(inner).setFailureType(to: TestError.self).switchToLatest().subscribe(recorder)
      inner.send(1)
    }
    expectTrap(
      trap,
      "switchToLatest: the current publisher sent a value beyond the demand requested from it"
    )
  }

  // Differential oracle (issue 15), misbehaving upstream: `switchToLatest - late1 v0.0 F1`. As
  // Combine: the current publisher completing before its subscription traps.
  @Test func innerCompletionBeforeSubscription_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let inner = CompletesWithoutSubscription<Int, TestError>(completion: .finished)
      let recorder = RecordingSubscriber<Int, TestError>()
      Just(inner).setFailureType(to: TestError.self).switchToLatest().subscribe(recorder)
    }
    expectTrap(
      trap,
      "switchToLatest: the current publisher completed before sending its subscription"
    )
  }

  // Differential oracle (issue 15), misbehaving upstream: `switchToLatest - v0.1 f0 V0.2`. As
  // Combine: a publisher the upstream sends after its `.finished` is ignored; the current one
  // keeps going.
  @Test func innerSubscriber_describesAndMirrorsItsParent() throws {
    // As Combine's (OpenCombine's `testSwitchToLatestReflection`): the subscriber attached to an
    // inner publisher is described by the operator and shows the subscription's identifier.
    let upstream = TestPublisher<InnerSpy<Int, Never>, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.switchToLatest().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let inner = InnerSpy<Int, Never>()
    upstream.send(inner)
    #expect(inner.descriptions == ["SwitchToLatest"])
    #expect(inner.mirrors == [["parentSubscription: \(subscription.combineIdentifier)"]])
  }

  @Test func publisherAfterTheUpstreamFinished_ignored() {
    let outer = LoggedPublisher<TestPublisher<Int, Boom>, Boom>("outer", log: CallLog())
    let recorder = RecordingSubscriber<Int, Boom>()
    outer.switchToLatest().subscribe(recorder)
    outer.send(inners[0])
    outer.send(completion: .finished)
    outer.send(inners[1])
    #expect(inners[1].subscriptionCount == 0)
    #expect(inners[0].requests == [.demand(.unlimited)])
    inners[0].send(5)
    #expect(recorder.values == [5])
  }

  @Test func synchronousInnersWithoutDemand_onlyLastDelivered() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    [[1, 2].publisher, [3].publisher].publisher.switchToLatest().subscribe(recorder)
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func synchronousInners_deliverAll() {
    let recorder = RecordingSubscriber<Int, Never>()
    [[1, 2].publisher, [3].publisher].publisher.switchToLatest().subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
  }

  @Test func newInner_cancelsPreviousAndDropsItsValues() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    inners[0].send(1)
    upstream.send(inners[1])
    #expect(inners[0].requests == [.demand(.unlimited), .cancel])
    inners[0].send(2)
    inners[1].send(3)
    #expect(recorder.values == [1, 3])
  }

  @Test func upstreamRequests_unlimited() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.switchToLatest().subscribe(recorder)
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func demandNone_innerAskedOnlyOnRequest() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    #expect(inners[0].requests.isEmpty)
    recorder.request(.max(2))
    #expect(inners[0].requests == [.demand(.max(2))])
    inners[0].send(1)
    #expect(recorder.values == [1])
  }

  @Test func outstandingDemand_carriedToNewInner() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(5))
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    inners[0].send(1)
    inners[0].send(2)
    upstream.send(inners[1])
    #expect(inners[1].requests == [.demand(.max(3))])
  }

  @Test func maxOne_toppedUpFromReceive_isReturnedToTheSendingInner() {
    // As Combine: the demand the subscriber returns goes back to the inner that sent the value
    // as `receive(_:)`'s result, not as a request.
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    inners[0].send(1)
    inners[0].send(2)
    upstream.send(inners[1])
    inners[1].send(3)
    #expect(recorder.values == [1, 2, 3])
    #expect(inners[1].requests == [.demand(.max(1))])
    #expect(inners[1].outstandingDemand == .max(1))
    #expect(inners.allSatisfy { $0.violations.isEmpty })
  }

  @Test func cancel_cancelsTheInnerBeforeTheUpstream() {
    let log = CallLog()
    let outer = LoggedPublisher<LoggedPublisher<Int, Boom>, Boom>("outer", log: log)
    let inner = LoggedPublisher<Int, Boom>("inner", log: log)
    let recorder = RecordingSubscriber<Int, Boom>()
    outer.switchToLatest().subscribe(recorder)
    outer.send(inner)
    log.calls.removeAll()
    recorder.cancel()
    #expect(log.calls == ["inner.cancel", "outer.cancel"])
  }

  @Test func finishes_whenUpstreamAndCurrentInnerFinished() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    upstream.send(completion: .finished)
    #expect(recorder.completion == nil)
    inners[0].send(1)
    inners[0].send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func replacedInnerFinishing_doesNotFinish() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    upstream.send(inners[1])
    upstream.send(completion: .finished)
    inners[0].send(completion: .finished)
    #expect(recorder.completion == nil)
    inners[1].send(completion: .finished)
    #expect(recorder.completion == .finished)
  }

  @Test func upstreamFinishesWithoutInner_finishesAtOnce() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func upstreamFails_cancelsInnerAndFails() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    inners[0].send(1)
    upstream.send(completion: .failure(Boom(code: 1)))
    #expect(inners[0].requests == [.demand(.unlimited), .cancel])
    inners[0].send(2)
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(Boom(code: 1)))])
  }

  @Test func innerFails_cancelsUpstreamAndFails() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    inners[0].send(completion: .failure(Boom(code: 2)))
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription, .completion(.failure(Boom(code: 2)))])
  }

  @Test func replacedInnerFailing_isIgnored() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    upstream.send(inners[1])
    inners[0].send(completion: .failure(Boom()))
    inners[1].send(4)
    #expect(recorder.events == [.subscription, .value(4)])
  }

  @Test func failureWhileValuesAreQueued_deliversThemFirst() {
    let inner = inners[0]
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { value in
      // Sent during a delivery, so delivered re-entrantly: the inner's values come before
      // its failure.
      if value == 0 {
        inner.send(1)
        inner.send(2)
        inner.send(completion: .failure(Boom()))
      }
      return .none
    }
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inner)
    inner.send(0)
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.completion == .failure(Boom()))
    #expect(recorder.violations.isEmpty)
    #expect(upstream.requests.last == .cancel)
  }

  @Test func failureWhileValuesAreQueuedWithoutDemand_doesNotWaitForDemand() {
    let inner = inners[0]
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(2)) { value in
      if value == 0 {
        inner.send(1)  // delivered re-entrantly, with the last demand
        inner.send(completion: .failure(Boom()))
      }
      return .none
    }
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inner)
    inner.send(0)
    #expect(recorder.values == [0, 1])
    #expect(recorder.completion == .failure(Boom()))
    recorder.request(.max(1))
    #expect(recorder.values == [0, 1])
    #expect(recorder.violations.isEmpty)
  }

  @Test func reentrantSendsSwitchAndFailure_deliveredInOrder() {
    let (upstream, inners) = (self.upstream, self.inners)
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { value in
      if value == 0 {
        inners[0].send(1)  // delivered re-entrantly, before the switch
        upstream.send(inners[1])
        inners[1].send(2)
        inners[1].send(completion: .failure(Boom()))
      }
      return .none
    }
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    inners[0].send(0)
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.completion == .failure(Boom()))
    #expect(recorder.violations.isEmpty)
  }

  /// A value sent from inside the subscriber is delivered re-entrantly, as in Combine; the
  /// failure sent after it waits for the outer call to return, and the cancel made before that
  /// ends the stream without it.
  @Test func cancelFromReceiveAfterAReentrantFailure_deliversNothingMore() {
    let inner = inners[0]
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { value in
      if value == 0 {
        inner.send(1)
        inner.send(completion: .failure(Boom()))
        holder.subscription?.cancel()
      }
      return .none
    }
    upstream.switchToLatest().subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(inner)
    inner.send(0)
    #expect(recorder.events == [.subscription, .value(0), .value(1)])
  }

  @Test func cancelBeforeInner_cancelsUpstream() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    recorder.cancel()
    upstream.send(inners[0])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(inners[0].subscriptionCount == 0)
  }

  @Test func cancelDuringInner_cancelsBoth() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    inners[0].send(1)
    recorder.cancel()
    inners[0].send(2)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(inners[0].requests == [.demand(.unlimited), .cancel])
    #expect(recorder.values == [1])
  }

  @Test func cancelAfterCompletion_doesNothing() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(completion: .finished)
    recorder.cancel()
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    [[1, 2, 3].publisher].publisher.switchToLatest().subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(1)])
  }

  @Test func requestFromReceive_reachesInner() {
    let holder = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { _ in
      holder.subscription?.request(.max(1))
      return .none
    }
    [[1, 2, 3].publisher].publisher.switchToLatest().subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
  }

  @Test func subscription_releasedAfterCancelAndCompletion() {
    let cancelled = WeakSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(cancelled)
    upstream.send(inners[0])
    cancelled.cancel()
    #expect(cancelled.subscription == nil)
    let completed = WeakSubscriber<Int, Never>()
    [[1].publisher].publisher.switchToLatest().subscribe(completed)
    #expect(completed.isCompleted)
    #expect(completed.subscription == nil)
  }

  @Test func description_isSwitchToLatest() {
    let recorder = RecordingSubscriber<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "SwitchToLatest")
  }

  @Test func erasedInners_replacedInnerValuesDropped() {
    let recorder = RecordingSubscriber<Int, Boom>()
    let erased = TestPublisher<AnyPublisher<Int, Boom>, Boom>()
    erased.switchToLatest().subscribe(recorder)
    erased.send(inners[0].eraseToAnyPublisher())
    inners[0].send(1)
    erased.send(inners[1].eraseToAnyPublisher())
    #expect(inners[0].requests == [.demand(.unlimited), .cancel])
    inners[0].send(2)
    inners[1].send(3)
    erased.send(Just(4).setFailureType(to: Boom.self).eraseToAnyPublisher())
    inners[1].send(5)
    #expect(recorder.values == [1, 3, 4])
    #expect(recorder.completion == nil)
  }

  @Test func innerSubscriber_describedAsSwitchToLatest() {
    let probe = SubscriberDescriptionProbe()
    let recorder = RecordingSubscriber<Int, Never>()
    [probe.eraseToAnyPublisher(), probe.eraseToAnyPublisher()].publisher.switchToLatest()
      .subscribe(recorder)
    [probe].publisher.switchToLatest().subscribe(RecordingSubscriber<Int, Never>())
    #expect(probe.descriptions == ["SwitchToLatest", "SwitchToLatest", "SwitchToLatest"])
    #expect(recorder.values == [7, 7])
    #expect(recorder.completion == .finished)
  }

  @Test func switchToLatest_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [[1, 2, 3].publisher].publisher.switchToLatest() },
      makeLongPublisher: {
        [Array(0..<1_000_000).publisher].publisher.switchToLatest()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func switchToLatestFailing_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Publishers.Sequence<[AnyPublisher<Int, Boom>], Boom>(sequence: [
          Publishers.Sequence<[Int], Boom>(sequence: [1, 2]).eraseToAnyPublisher()
        ])
        .switchToLatest()
      },
      makeFailingPublisher: {
        Publishers.Sequence<[AnyPublisher<Int, Boom>], Boom>(sequence: [
          Fail<Int, Boom>(error: Boom()).eraseToAnyPublisher()
        ])
        .switchToLatest()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  // MARK: Concurrency

  @Test func switchWhileOldInnerSends_noOldValueAfterSwitch() {
    let recorder = ConcurrentRecorder<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    let inners = self.inners
    let upstream = self.upstream
    let switched = SwitchMark()
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      if side == 0 {
        for value in 0..<5_000 { inners[0].send(value) }
      } else {
        upstream.send(inners[1])
        switched.set(recorder.values.count)
      }
    }
    for value in 0..<100 { inners[0].send(value) }
    inners[1].send(-1)
    let values = recorder.values
    // At most the one delivery in flight at the switch may land after the count was read.
    #expect(values.count <= switched.count + 2)
    #expect(values.last == -1)
    #expect(inners[0].requests.last == .cancel)
    #expect(recorder.violations.isEmpty)
  }

  @Test func concurrentSwitchesAndSends_deliveriesNeverOverlap() {
    let recorder = ConcurrentRecorder<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    let inners = self.inners
    let upstream = self.upstream
    DispatchQueue.concurrentPerform(iterations: inners.count + 1) { index in
      if index == inners.count {
        for round in 0..<300 { upstream.send(inners[round % inners.count]) }
      } else {
        for value in 0..<2_000 { inners[index].send(index * 10_000 + value) }
      }
    }
    let values = recorder.values
    #expect(Set(values).count == values.count)
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelRacingSends_nothingAfterCancel() {
    let recorder = ConcurrentRecorder<Int, Boom>()
    upstream.switchToLatest().subscribe(recorder)
    upstream.send(inners[0])
    let inner = inners[0]
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      if side == 0 {
        for value in 0..<2_000 { inner.send(value) }
      } else {
        recorder.subscription?.cancel()
      }
    }
    let count = recorder.values.count
    inner.send(-1)
    #expect(recorder.values.count == count)
    #expect(inner.requests.last == .cancel)
    #expect(recorder.violations.isEmpty)
  }

  /// `cancel()` drops a failure still waiting for the outer delivery. It used to release it under
  /// the lock, where a deinit it triggers (here the error's own) could not call back in; the
  /// deinit probes the lock from another thread (false before the fix).
  @Test func cancelWithAFailurePending_releasesItOutsideTheLock() {
    let upstream = LockProbeSource<LockProbeSource<Int, LockProbeError>, LockProbeError>()
    let inner = LockProbeSource<Int, LockProbeError>()
    let holder = SubscriptionHolder()
    let deinitFoundTheLockFree = LockedState<Bool?>(nil)
    let recorder = RecordingSubscriber<Int, LockProbeError>(initialDemand: .unlimited) { value in
      if value == 0 {
        inner.send(1)  // delivered re-entrantly
        inner.fail(
          LockProbeError {
            let free = lockProbeReturnsPromptly { holder.subscription?.request(.max(1)) }
            deinitFoundTheLockFree.withLock { $0 = free }
          }
        )
        holder.subscription?.cancel()
      }
      return .none
    }
    upstream.switchToLatest().subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(inner)
    inner.send(0)
    #expect(deinitFoundTheLockFree.withLock { $0 } == true)
    #expect(recorder.values == [0, 1])  // 1 re-entrantly
    holder.subscription = nil
  }
}

/// The number of values seen right after the switch.
// Sendable: `value` is only reached under `lock`.
private final class SwitchMark: @unchecked Sendable {
  private let lock = Lock()
  private var value = 0

  var count: Int { lock.withLock { value } }

  func set(_ count: Int) { lock.withLock { value = count } }
}

/// A publisher that records how each subscriber describes itself, then sends 7 and finishes.
// Sendable: used from one thread only.
private final class SubscriberDescriptionProbe: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  var descriptions: [String] = []

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    descriptions.append(String(describing: subscriber))
    Just(7).receive(subscriber: subscriber)
  }
}
