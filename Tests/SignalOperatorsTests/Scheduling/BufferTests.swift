import Dispatch
import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct BufferTests {
  @Test func subscription_describesItselfAndMirrorsValuesStateDemandAndTerminal() throws {
    // As Combine's: `Buffer`, with the buffered values, the state, the demand not yet met
    // and the completion waiting behind the values.
    let upstream = TestPublisher<Int, TestError>()
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.buffer(size: 4, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Buffer")
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["values", "state", "downstreamDemand", "terminal"])
    #expect(mirror.children.first?.value as? [Int] == [1, 2])
    let terminal = Array(mirror.children).last?.value as? Subscribers.Completion<TestError>
    #expect(terminal == .finished)
  }

  struct Boom: Error, Equatable {}
  struct Overflow: Error, Equatable {}

  let upstream = TestPublisher<Int, Boom>()

  @Test func sizeZero_doesNotTrap_andEveryValueFindsTheBufferFull_asCombine() {
    let dropping = TestPublisher<Int, Never>()
    let dropped = RecordingSubscriber<Int, Never>(initialDemand: nil)
    dropping.buffer(size: 0, prefetch: .byRequest, whenFull: .dropNewest).subscribe(dropped)
    dropping.send(1)
    dropped.subscription?.request(.max(1))
    #expect(dropped.values.isEmpty)
    let failing = TestPublisher<Int, Overflow>()
    let failed = RecordingSubscriber<Int, Overflow>(initialDemand: .max(1))
    failing.buffer(size: 0, prefetch: .byRequest, whenFull: .customError { Overflow() })
      .subscribe(failed)
    failing.send(1)
    failed.subscription?.request(.max(1))
    #expect(failed.values.isEmpty)
    #expect(failed.completion == .failure(Overflow()))
  }

  @Test func keepFull_requestsSizeAtSubscription() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    #expect(upstream.requests == [.demand(.max(3))])
    #expect(recorder.events == [.subscription])
  }

  @Test func keepFull_refillsOnePerDeliveredValue() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1))])
    upstream.send(3)
    recorder.request(.max(5))
    #expect(recorder.values == [1, 2, 3])
    // As Combine's: one request for what the drain delivered, after it.
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1)), .demand(.max(2))])
    #expect(upstream.outstandingDemand == .max(2))
    #expect(upstream.violations.isEmpty)
  }

  @Test func keepFull_refillForValuesDeliveredFromReceive_isTheDemandReturned() {
    // As Combine's: a value that goes straight downstream returns its refill from receive(_:).
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(2))
    upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(upstream.outstandingDemand == .max(2))  // each returned its refill
    upstream.send(3)
    #expect(upstream.outstandingDemand == .max(1))  // buffered: no refill yet
    #expect(upstream.requests == [.demand(.max(2))])
    #expect(recorder.values == [1, 2])
  }

  @Test func keepFull_noRefillAfterACancelInsideReceive() {
    // Oracle: `buffer.keepFull.customError u k0 v0.4` (I8: nothing goes upstream after the
    // end; OpenCombine returns max(1)).
    let box = Holder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .unlimited) { _ in
      box.subscription?.cancel()
      return .none
    }
    upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    box.subscription = recorder.subscription
    upstream.send(4)
    #expect(recorder.values == [4])
    #expect(upstream.requests == [.demand(.max(2)), .cancel])
  }

  @Test func keepFull_noRefillAfterACancelInsideReceive_whenARequestDrains() {
    // Oracle: `buffer.keepFull.dropNewest - k0 v0.3 v0.4 r0.u`: the drain a request runs sends
    // no refill once the subscriber cancelled in it.
    let box = Holder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil) { _ in
      box.subscription?.cancel()
      return .none
    }
    upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    box.subscription = recorder.subscription
    upstream.send(3)
    upstream.send(4)
    recorder.request(.unlimited)
    #expect(recorder.values == [3])
    #expect(upstream.requests == [.demand(.max(2)), .cancel])
  }

  @Test func byRequest_requestsUnlimitedBeforeTheSubscriberIsSubscribed() {
    // As Combine: `.byRequest` asks for everything at once, before the subscriber has its
    // subscription; the subscriber's requests stay with the buffer.
    let seen = Seen<[TestPublisher<Int, Boom>.Request]>()
    let upstream = self.upstream
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    let subscriber = AnySubscriber<Int, Boom>(
      receiveSubscription: { subscription in
        seen.value = upstream.requests
        recorder.receive(subscription: subscription)
      },
      receiveValue: { recorder.receive($0) },
      receiveCompletion: { recorder.receive(completion: $0) }
    )
    upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
    #expect(seen.value == [.demand(.unlimited)])
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(2))
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(recorder.values == [1, 2])
  }

  @Test func keepFull_requestsSizeBeforeTheSubscriberIsSubscribed() {
    let seen = Seen<[TestPublisher<Int, Boom>.Request]>()
    let upstream = self.upstream
    let subscriber = AnySubscriber<Int, Boom>(
      receiveSubscription: { _ in seen.value = upstream.requests },
      receiveValue: { _ in .none },
      receiveCompletion: { _ in }
    )
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
    #expect(seen.value == [.demand(.max(3))])
  }

  @Test func synchronousUpstream_waitsForTheSubscription() {
    // `Just` sends its value and finishes inside the prefetch request, before the subscriber
    // has its subscription: both wait in the buffer.
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Just(1).buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest).subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1)])
    recorder.request(.max(1))  // `.finished` waits for demand, as in Combine
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func byRequest_demandFromReceive_deliversBufferedValues() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1, 2])
    #expect(upstream.violations.isEmpty)
  }

  @Test func overflow_dropNewest_keepsFirstValues() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Overfill<Never>(values: [1, 2, 3, 4])
      .buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest)
      .subscribe(recorder)
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func overflow_dropOldest_keepsLastValues() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Overfill<Never>(values: [1, 2, 3, 4])
      .buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest)
      .subscribe(recorder)
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription, .value(3), .value(4), .completion(.finished)])
  }

  @Test func overflow_customError_keepsTheBufferAndFailsOnTheNextRequest() {
    // As Combine's: the upstream is cancelled at once; the error waits for the next request
    // and goes after the buffered values that request covers.
    let source = TestPublisher<Int, Overflow>()
    let recorder = RecordingSubscriber<Int, Overflow>(initialDemand: nil)
    source.buffer(size: 3, prefetch: .byRequest, whenFull: .customError { Overflow() })
      .subscribe(recorder)
    for value in 1...5 { source.send(value) }
    #expect(source.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription])
    recorder.request(.max(2))
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .completion(.failure(Overflow()))]
    )
    recorder.request(.max(1))
    #expect(recorder.events.count == 4)
  }

  @Test func overflow_customError_withDemandCoveringTheBuffer_deliversItThenFails() {
    let recorder = RecordingSubscriber<Int, Overflow>(initialDemand: nil)
    Overfill<Overflow>(values: [1, 2, 3])
      .buffer(size: 2, prefetch: .keepFull, whenFull: .customError { Overflow() })
      .subscribe(recorder)
    #expect(recorder.events == [.subscription])
    recorder.request(.unlimited)
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .completion(.failure(Overflow()))]
    )
  }

  @Test func fatalErrorStrategy_isCustomError() {
    let strategy = Publishers.BufferingStrategy<Boom>.fatalError("full")
    guard case .customError = strategy else {
      Issue.record("expected .customError")
      return
    }
  }

  @Test func finished_arrivesAfterBufferedValues_whenTheSubscriberHasDemand() {
    // As Combine's: `.finished` waits for demand, even once the buffer is empty.
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(2))
    #expect(recorder.events == [.subscription, .value(1), .value(2)])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func emptyBufferFinished_waitsForDemand() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func failure_withoutDemand_goesAtOnceAndDropsTheBuffer() {
    // As Combine's: a failure doesn't wait for demand.
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(Boom()))
    #expect(recorder.events == [.subscription, .completion(.failure(Boom()))])
  }

  @Test func failure_goesAfterTheValuesTheDemandCovers() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    recorder.request(.max(1))
    upstream.send(completion: .failure(Boom()))
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(Boom()))])
  }

  /// As Combine's, which takes out as many values as the demand covers at once: a failure that
  /// arrives while they are delivered, with no demand left beyond them, goes next; Combine then
  /// sends the rest after the failure, StreamKit drops them (OpenCombine's
  /// `BufferTests.testFailWhileSendingValues`).
  @Test func failureDuringADelivery_withNoDemandLeft_goesNext_andTheRestIsDropped() {
    let holder = LockedState<TestPublisher<Int, Boom>?>(nil)
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil) { _ in
      holder.withLock { $0 }?.send(completion: .failure(Boom()))
      return .none
    }
    holder.withLock { $0 = upstream }
    upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(recorder)
    for value in 1...5 { upstream.send(value) }
    recorder.request(.max(3))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(Boom()))])
  }

  /// With demand left beyond the values being delivered, the failure waits for the values that
  /// demand covers, as in Combine.
  @Test func failureDuringADelivery_withDemandLeft_goesAfterTheCoveredValues() {
    let holder = LockedState<TestPublisher<Int, Boom>?>(nil)
    let subscription = SubscriptionHolder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil) { value in
      if value == 1 {
        subscription.subscription?.request(.max(1))  // demand beyond the values taken out
        holder.withLock { $0 }?.send(completion: .failure(Boom()))
      }
      return .none
    }
    holder.withLock { $0 = upstream }
    upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(recorder)
    subscription.subscription = recorder.subscription
    for value in 1...4 { upstream.send(value) }
    recorder.request(.max(2))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .failure(Boom()))
  }

  /// As Combine's: after an overflow with `.keepFull`, the values delivered are still refilled,
  /// from the upstream the overflow cancelled (a subscription ignores requests after its
  /// cancel; OpenCombine's `testRequestingFiniteDemandKeepFullCustomError`).
  @Test func overflow_customError_keepFull_refillsFromTheCancelledUpstream() {
    let source = PushingUpstream<Overflow>()
    let recorder = RecordingSubscriber<Int, Overflow>(initialDemand: nil)
    source.buffer(size: 5, prefetch: .keepFull, whenFull: .customError { Overflow() })
      .subscribe(recorder)
    for value in 0..<10 { source.send(value) }
    #expect(source.probe.cancelled)
    recorder.request(.max(3))
    recorder.request(.max(1))
    #expect(
      recorder.events == [
        .subscription, .value(0), .value(1), .value(2), .completion(.failure(Overflow())),
      ]
    )
    #expect(source.probe.requested == [.max(5), .max(3)])
  }

  /// As Combine's, which makes the error holding its lock: a value the `.customError` closure
  /// sends to the same buffer traps (OpenCombine's `testDeadlockWhenErroringOnFullBuffer`).
  @Test func overflow_customErrorClosureSendingToTheBuffer_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let source = PushingUpstream<Overflow>()
      source.buffer(
        size: 0,
        prefetch: .keepFull,
        whenFull: .customError {
          source.send(1000)
          return Overflow()
        }
      )
      .subscribe(RecordingSubscriber<Int, Overflow>(initialDemand: .max(2)))
      source.send(0)
    }
    expectTrap(trap, "buffer: the .customError closure sent a value to the same buffer")
  }

  @Test func cancelAfterTheUpstreamFinished_doesNotReachIt() {
    // Oracle: `buffer.byRequest.dropOldest - v0.2 f0 k0 r0.3 v0.0` (I8: OpenCombine cancels
    // the upstream that already finished).
    let box = Holder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil) { _ in
      box.subscription?.cancel()
      return .none
    }
    upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).subscribe(recorder)
    box.subscription = recorder.subscription
    upstream.send(2)
    upstream.send(completion: .finished)
    recorder.request(.max(3))
    #expect(recorder.events == [.subscription, .value(2)])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func cancel_cancelsUpstreamAndDropsBuffer() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    upstream.send(1)
    recorder.cancel()
    #expect(upstream.requests == [.demand(.max(3)), .cancel])
    recorder.subscription?.request(.max(1))
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let box = Holder()
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil) { _ in
      box.subscription?.cancel()
      return .none
    }
    upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    box.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)
    recorder.request(.max(2))
    #expect(recorder.values == [1])
  }

  @Test func orderedDelivery_acrossManyValues() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    (0..<500).publisher
      .buffer(size: 10, prefetch: .keepFull, whenFull: .dropNewest)
      .subscribe(recorder)
    #expect(recorder.values == Array(0..<500))
    #expect(recorder.completion == .finished)
  }

  @Test func concurrentSendsAndRequests_deliverEveryValueInOrder() {
    let source = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    source.buffer(size: 1_000, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      for value in 0..<1_000 {
        if side == 0 { source.send(value) } else { recorder.request(.max(1)) }
      }
    }
    #expect(recorder.values == Array(0..<1_000))
    #expect(recorder.violations.isEmpty)
    #expect(source.violations.isEmpty)
  }

  @Test func buffer_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [1, 2, 3].publisher.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest)
      },
      makeLongPublisher: {
        Array(0..<1_000_000).publisher.buffer(size: 4, prefetch: .keepFull, whenFull: .dropNewest)
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func bufferByRequest_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        // `.byRequest` asks for everything at once: the buffer holds all three.
        [1, 2, 3].publisher.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest)
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  /// `cancel()` drops an overflow error still waiting for the next request. It must release it
  /// outside the lock, where a deinit it triggers (here the error's own) can call back in; the
  /// deinit probes the lock from another thread.
  @Test func cancelWithAFailurePending_releasesItOutsideTheLock() {
    let upstream = LockProbeSource<Int, LockProbeError>()
    let holder = SubscriptionHolder()
    let deinitFoundTheLockFree = LockedState<Bool?>(nil)
    let recorder = RecordingSubscriber<Int, LockProbeError>(initialDemand: nil)
    let strategy = Publishers.BufferingStrategy<LockProbeError>.customError {
      LockProbeError {
        let free = lockProbeReturnsPromptly { holder.subscription?.request(.max(1)) }
        deinitFoundTheLockFree.withLock { $0 = free }
      }
    }
    upstream.buffer(size: 1, prefetch: .keepFull, whenFull: strategy).subscribe(recorder)
    holder.subscription = recorder.subscription
    upstream.send(1)
    upstream.send(2)  // overflows: the error waits for the next request
    recorder.cancel()
    #expect(deinitFoundTheLockFree.withLock { $0 } == true)
    #expect(recorder.values.isEmpty)
    holder.subscription = nil
  }
}

/// Holds a subscription for a closure written before the subscription exists.
// Sendable: `stored` is only reached under `lock`.
private final class Holder: @unchecked Sendable {
  private let lock = Lock()
  private var stored: (any Subscription)?

  var subscription: (any Subscription)? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// A publisher that ignores demand and sends all its values, then finishes, as soon as it is
/// subscribed: it overfills a buffer on purpose.
private struct Overfill<Failure: Error>: Publisher {
  typealias Output = Int
  let values: [Int]

  init(values: [Int]) {
    self.values = values
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
    subscriber.receive(subscription: OverfillSubscription())
    for value in values {
      _ = subscriber.receive(value)
    }
    subscriber.receive(completion: .finished)
  }
}

private final class OverfillSubscription: Subscription {
  func request(_ demand: Subscribers.Demand) {}
  func cancel() {}
}

/// An upstream that sends whatever the test tells it, whatever the demand, and records what it
/// is asked in `probe`.
// Sendable: used on one thread only.
private final class PushingUpstream<Failure: Error>: Publisher, @unchecked Sendable {
  typealias Output = Int
  let probe = SubscriptionProbe()
  private var subscriber: AnySubscriber<Int, Failure>?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
    self.subscriber = AnySubscriber(subscriber)
    subscriber.receive(subscription: probe)
  }

  func send(_ value: Int) { _ = subscriber?.receive(value) }
}
