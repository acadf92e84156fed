import Dispatch
import Observation
import StreamCore
import StreamObservation
import StreamTesting
import Testing

/// `ObservationTrackingPublisher`: whatever a closure reads.
@Suite(.timeLimit(.minutes(5))) struct ObservationTrackingPublisherTests {
  let scheduler = TestScheduler()

  @Test func closure_isTrackedOnEveryPropertyItReads() {
    let first = Counter(count: 1)
    let second = Counter(count: 10)
    let recorder = RecordingSubscriber<Int, Never>()
    ObservationTrackingPublisher(scheduler: scheduler) { first.count + second.count }
      .subscribe(recorder)
    scheduler.advance()
    first.count = 2
    scheduler.advance()
    second.count = 20
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(11), .value(12), .value(22)])
  }

  @Test func closure_isTrackedOnWhatItReadLast() {
    let model = Counter()
    let recorder = RecordingSubscriber<String, Never>()
    ObservationTrackingPublisher(scheduler: scheduler) {
      model.count == 0 ? "zero" : model.label
    }
    .subscribe(recorder)
    scheduler.advance()
    model.label = "not read yet"
    scheduler.advance()
    model.count = 1
    scheduler.advance()
    model.label = "read now"
    scheduler.advance()
    #expect(recorder.values == ["zero", "not read yet", "read now"])
  }

  @Test func changesToSeveralModelsBetweenTwoTurns_coalesce() {
    let first = Counter()
    let second = Counter()
    let recorder = RecordingSubscriber<Int, Never>()
    ObservationTrackingPublisher(scheduler: scheduler) { first.count * 100 + second.count }
      .subscribe(recorder)
    scheduler.advance()
    first.count = 1
    second.count = 2
    first.count = 3
    scheduler.advance()
    #expect(recorder.values == [0, 302])
  }

  @Test func closure_readsOnTheSchedulerOnly() {
    let model = Counter()
    let reads = LockedState(0)
    let recorder = RecordingSubscriber<Int, Never>()
    ObservationTrackingPublisher(scheduler: scheduler) {
      reads.withLock { $0 += 1 }
      return model.count
    }
    .subscribe(recorder)
    #expect(reads.withLock { $0 } == 0)
    scheduler.advance()
    model.count = 1
    model.count = 2
    #expect(reads.withLock { $0 } == 1)
    scheduler.advance()
    #expect(reads.withLock { $0 } == 2)
    #expect(recorder.values == [0, 2])
  }

  @Test func closureThatReadsNothingObservable_sendsOneValueThenFinishes() {
    let recorder = RecordingSubscriber<Int, Never>()
    ObservationTrackingPublisher(scheduler: scheduler) { 42 }.subscribe(recorder)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(42), .completion(.finished)])
  }

  @Test func cancel_releasesTheClosureAndTheModelItCaptures() {
    var model: Counter? = Counter()
    weak let released = model
    let recorder = RecordingSubscriber<Int, Never>()
    do {
      let captured = model!
      ObservationTrackingPublisher(scheduler: scheduler) { captured.count }.subscribe(recorder)
    }
    scheduler.advance()
    model!.count = 1
    recorder.cancel()
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(0)])
    model = nil
    #expect(released == nil)
  }

  @Test func cancelFromInsideTheSubscriber_stopsAtOnce() {
    let model = Counter()
    var recorder: RecordingSubscriber<Int, Never>?
    recorder = RecordingSubscriber<Int, Never> { value in
      model.count = value + 1
      recorder?.cancel()
      return .none
    }
    ObservationTrackingPublisher(scheduler: scheduler) { model.count }.subscribe(recorder!)
    scheduler.advance()
    #expect(recorder?.events == [.subscription, .value(0)])
    recorder = nil
  }

  @Test func changesFromManyThreads_endWithTheLastValue() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>()
    ObservationTrackingPublisher(scheduler: scheduler) { model.count }.subscribe(recorder)
    scheduler.advance()
    // One thread at a time changes the model (a serial queue); the test thread waits.
    let handed = Handed(value: model)
    let queue = DispatchQueue(label: "changes")
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      queue.sync { handed.value.count += 1 }
    }
    queue.async { done.signal() }
    #expect(done.wait(timeout: .now() + 60) == .success)
    scheduler.advance()
    #expect(recorder.values == [0, 8])
  }

  @Test func conformanceKit_passesEveryRule() {
    PublisherConformance(
      timeout: .seconds(10),
      makePublisher: {
        let scheduler = ChangingScheduler()
        let model = scheduler.model
        return ObservationTrackingPublisher(scheduler: scheduler) { model.count }
      }
    )
    .run()
    // It never completes, so the rules about completion are checked by the finite run below.
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.02", "SC-2.03", "SC-2.04", "SC-4.02"])
  }

  @Test func conformanceKit_untrackedClosure_passesEveryRule() {
    PublisherConformance(
      elements: 1,
      timeout: .seconds(10),
      makePublisher: {
        ObservationTrackingPublisher(scheduler: ChangingScheduler()) { 1 }
      }
    )
    .run()
    // SC-3.02 needs two values; the run above checks it.
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
  }
}
