import Dispatch
import SignalOperators
import StreamCore
import StreamSnail
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SampleTests {
  let upstream = TestPublisher<String, SnailOpsError>()
  let scheduler = TestScheduler()

  private func sampled(
    _ demand: Subscribers.Demand = .unlimited
  ) -> RecordingSubscriber<String, SnailOpsError> {
    let recorder = RecordingSubscriber<String, SnailOpsError>(initialDemand: demand)
    upstream.sample(every: 10, scheduler: scheduler).subscribe(recorder)
    return recorder
  }

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_mirrorsDownstreamUpstreamAndTheLatestValue() throws {
    let recorder = RecordingSubscriber<String, SnailOpsError>(initialDemand: .max(1))
    upstream.sample(every: 10, scheduler: scheduler).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "Sample")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "Sample")
    upstream.send("a")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "upstreamSubscription", "latest"])
    #expect(children().first?.value as? RecordingSubscriber<String, SnailOpsError> === recorder)
    #expect(
      children().dropFirst().map { String(describing: $0.value) }
        == ["Optional(TestPublisher)", "Optional(\"a\")"]
    )
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "nil", "nil"])
  }

  @Test func twoValuesWithinTick_emitsLatest() {
    let recorder = sampled()
    upstream.send("1")
    upstream.send("2")
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: 10)
    #expect(recorder.values == ["2"])
    #expect(recorder.subscriptionDescription == "Sample")
  }

  @Test func valueThenTickThenTwoValues_emitsOnePerTick() {
    let recorder = sampled()
    upstream.send("1")
    scheduler.advance(by: 10)
    upstream.send("2")
    upstream.send("3")
    scheduler.advance(by: 10)
    #expect(recorder.values == ["1", "3"])
  }

  @Test func tickWithoutNewValue_emitsNothing() {
    let recorder = sampled()
    upstream.send("1")
    scheduler.advance(by: 30)
    #expect(recorder.values == ["1"])
  }

  @Test func valueNotEmittedBeforeTick() {
    let recorder = sampled()
    scheduler.advance(by: 5)
    upstream.send("1")
    scheduler.advance(by: 4)
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: 1)
    #expect(recorder.values == ["1"])
  }

  @Test func requestsUnlimitedUpstream() {
    _ = sampled(.max(1))
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func noDemand_keepsLatestUntilRequested() {
    let recorder = sampled(.none)
    upstream.send("1")
    scheduler.advance(by: 10)
    #expect(recorder.values.isEmpty)
    upstream.send("2")
    recorder.request(.max(1))
    scheduler.advance(by: 10)
    #expect(recorder.values == ["2"])
    upstream.send("3")
    scheduler.advance(by: 10)
    #expect(recorder.values == ["2"])
  }

  @Test func demandFromReceive_isAdded() {
    let recorder = RecordingSubscriber<String, SnailOpsError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.sample(every: 10, scheduler: scheduler).subscribe(recorder)
    for value in ["a", "b", "c"] {
      upstream.send(value)
      scheduler.advance(by: 10)
    }
    #expect(recorder.values == ["a", "b", "c"])
  }

  @Test func finish_flushesLatestOnScheduler() {
    let recorder = sampled()
    upstream.send("1")
    upstream.send(completion: .finished)
    #expect(recorder.completion == nil)
    scheduler.advance()
    #expect(recorder.values == ["1"])
    #expect(recorder.completion == .finished)
  }

  @Test func failure_dropsLatest() {
    let recorder = sampled()
    upstream.send("1")
    upstream.send(completion: .failure(.boom))
    scheduler.advance()
    #expect(recorder.values.isEmpty)
    #expect(recorder.completion == .failure(.boom))
  }

  @Test func cancel_stopsTicksAndUpstream() {
    let recorder = sampled()
    upstream.send("1")
    recorder.cancel()
    scheduler.advance(by: 10)
    #expect(recorder.values.isEmpty)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let log = SnailOpsLog<String>()
    let box = LockedState<AnyCancellable?>(nil)
    let token = upstream.sample(every: 10, scheduler: scheduler).sink(
      receiveCompletion: { _ in },
      receiveValue: { value in
        log.append(value)
        box.withLock { $0 }?.cancel()
      }
    )
    box.withLock { $0 = token }
    upstream.send("1")
    scheduler.advance(by: 10)
    upstream.send("2")
    scheduler.advance(by: 10)
    #expect(log.entries == ["1"])
    #expect(upstream.requests.last == .cancel)
  }

  @Test func inner_releasedAfterCancelAndAfterCompletion() {
    weak var weakSubscription: AnyObject?
    do {
      let recorder = sampled()
      weakSubscription = recorder.subscription as AnyObject?
      recorder.cancel()
    }
    #expect(weakSubscription == nil)
    do {
      let recorder = sampled()
      weakSubscription = recorder.subscription as AnyObject?
      upstream.send(completion: .finished)
      scheduler.advance()
    }
    #expect(weakSubscription == nil)
  }

  @Test func conforms() {
    let queue = DispatchQueue(label: "snail.sample.conformance")
    PublisherConformance(
      elements: 0,
      makePublisher: {
        Empty<Int, SnailOpsError>().sample(every: .milliseconds(1), scheduler: queue)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Fail<Int, SnailOpsError>(error: .boom).sample(every: .milliseconds(1), scheduler: queue)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.01", "SC-3.02"])
  }

  /// No timer exists while the subscriber is in `receive(subscription:)`, even after it
  /// requests there: nothing can tick on another thread before the subscriber has its
  /// subscription. The timer used to be scheduled before `receive(subscription:)` was sent.
  @Test func duringReceiveSubscription_noTimerIsScheduled() {
    let scheduler = scheduler
    let subscriber = TimingOrderProbe<String, SnailOpsError> { scheduler.pendingActionCount }
    upstream.sample(every: 10, scheduler: scheduler).subscribe(subscriber)
    #expect(subscriber.observed.withLock { $0 } == [0])
    #expect(scheduler.pendingActionCount == 1)
  }

  /// A tick that comes while the subscriber is still receiving the previous sample (here from
  /// inside its `receive(_:)`, as on a concurrent scheduler) waits for that call to return; it
  /// used to call the subscriber re-entrantly.
  @Test func tickDuringDelivery_waitsForTheDeliveryToReturn() {
    let upstream = upstream
    let scheduler = scheduler
    let log = LockedState<[String]>([])
    let recorder = RecordingSubscriber<String, SnailOpsError>(initialDemand: .unlimited) { value in
      log.withLock { $0.append("begin \(value)") }
      if value == "1" {
        upstream.send("2")
        scheduler.advance(by: 10)
      }
      log.withLock { $0.append("end \(value)") }
      return .none
    }
    upstream.sample(every: 10, scheduler: scheduler).subscribe(recorder)
    upstream.send("1")
    scheduler.advance(by: 10)
    #expect(log.withLock { $0 } == ["begin 1", "end 1", "begin 2", "end 2"])
    #expect(recorder.values == ["1", "2"])
  }
}
